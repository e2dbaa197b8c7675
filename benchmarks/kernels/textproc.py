"""Text processing: dicts, strings, comprehensions, sorting."""


def words(n):
    base = "the quick brown fox jumps over the lazy dog while lexecutor runs incomplete code".split()
    return [base[(i * 7 + i // 3) % len(base)] + str(i % 11) for i in range(n)]


def histogram(ws):
    counts = {}
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
    return counts


def bench(n=60000):
    ws = words(n)
    h = histogram(ws)
    top = sorted(h.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    joined = ",".join(w.upper() for w, _ in top)
    caps = sum(1 for w in ws if w.startswith("l") and w.endswith("3"))
    return joined, caps, len(h)
