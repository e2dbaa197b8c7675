"""Object-oriented task scheduling: classes, attributes, method calls."""


class Packet:
    def __init__(self, link, ident, kind):
        self.link = link
        self.ident = ident
        self.kind = kind
        self.datum = 0
        self.data = [0] * 4

    def append_to(self, lst):
        self.link = None
        if lst is None:
            return self
        p = lst
        nxt = p.link
        while nxt is not None:
            p = nxt
            nxt = p.link
        p.link = self
        return lst


class Task:
    def __init__(self, ident, priority, work):
        self.ident = ident
        self.priority = priority
        self.work = work
        self.queue = None
        self.count = 0

    def run(self, packet):
        self.count += 1
        if packet is not None:
            packet.datum = (packet.datum + self.priority) % 7
            self.queue = packet.append_to(self.queue)
        if self.queue is not None:
            head = self.queue
            self.queue = head.link
            return head
        return None


class Scheduler:
    def __init__(self, ntasks):
        self.tasks = [Task(i, i % 5 + 1, i * 3) for i in range(ntasks)]
        self.holds = 0

    def schedule(self, rounds):
        packets = [Packet(None, i, i % 3) for i in range(len(self.tasks))]
        moved = 0
        for r in range(rounds):
            for t in self.tasks:
                pkt = packets[(r + t.ident) % len(packets)]
                out = t.run(pkt if (r + t.ident) % 2 == 0 else None)
                if out is not None:
                    moved += out.datum
                    packets[t.ident % len(packets)] = out
                else:
                    self.holds += 1
        return moved, self.holds


def bench(n=3000):
    return Scheduler(12).schedule(n)
