"""The run journal: memory the parent shares with the sandbox child, in which
the child's runtime keeps its line markers and appends every injection and
failed import as it happens (csrc/runtime/journal.h has the layout).  When
the child dies without reporting -- a segfault, a SIGKILL at the timeout or
by the memory limit, os._exit -- the parent still reads what it covered and
injected from here.

The executed code can write to this memory too: :func:`read` checks every
length against the mapping and returns plain data only.
"""
from __future__ import annotations

import mmap
import struct
from typing import Optional

MAGIC = b"LXJ1"
HEADER = struct.Struct("<4sIQQQ")      # magic, flags, log_used, bitmap_bytes, log_bytes
LOG_FULL = 1
BITS_OVERFLOW = 2
#: defaults: markers for 2**18 iids, 1 MiB of records
BITMAP_BYTES = 1 << 15
LOG_BYTES = 1 << 20


def create(bitmap_bytes: int = BITMAP_BYTES, log_bytes: int = LOG_BYTES) -> mmap.mmap:
    """A new, empty journal: an anonymous shared mapping (a fork shares it)."""
    if bitmap_bytes < 1 or log_bytes < 64:
        raise ValueError("journal: bitmap_bytes >= 1 and log_bytes >= 64")
    mm = mmap.mmap(-1, HEADER.size + bitmap_bytes + log_bytes,
                   flags=mmap.MAP_SHARED | getattr(mmap, "MAP_ANONYMOUS", 0x20))
    HEADER.pack_into(mm, 0, MAGIC, 0, 0, bitmap_bytes, log_bytes)
    return mm


class Journal:
    """What a journal holds: ``reached`` (marker iids), ``injections`` and
    ``failed_imports`` (as in a Result), ``log_full`` and ``bits_overflow``
    (the journal could not hold everything)."""

    def __init__(self, reached, injections, failed_imports, flags):
        self.reached = reached
        self.injections = injections
        self.failed_imports = failed_imports
        self.log_full = bool(flags & LOG_FULL)
        self.bits_overflow = bool(flags & BITS_OVERFLOW)


def _str(data: bytes, pos: int, end: int):
    if pos + 4 > end:
        raise ValueError("truncated")
    (n,) = struct.unpack_from("<I", data, pos)
    pos += 4
    if n == 0xFFFFFFFF:
        return None, pos
    if pos + n > end:
        raise ValueError("truncated")
    return data[pos:pos + n].decode("utf-8", "replace"), pos + n


def read(mm) -> Optional[Journal]:
    """The journal's content, or None when its header is not one (the child
    may have overwritten it).  Records are read up to the first malformed one."""
    data = bytes(mm)
    if len(data) < HEADER.size:
        return None
    magic, flags, used, nbits, nlog = HEADER.unpack_from(data, 0)
    if magic != MAGIC or HEADER.size + nbits + nlog > len(data):
        return None
    bits = data[HEADER.size:HEADER.size + nbits]
    reached = set()
    for i, b in enumerate(bits):
        if b:
            for k in range(8):
                if b >> k & 1:
                    reached.add(i * 8 + k)
    log_start = HEADER.size + nbits
    end = log_start + min(used, nlog)
    pos = log_start
    injections, failed = [], []
    while pos + 21 <= end:
        size, typ, iid, line = struct.unpack_from("<IBqq", data, pos)
        rec_end = pos + size
        if size < 21 or rec_end > end:
            break
        try:
            p = pos + 21
            if typ == ord("I"):
                kind, p = _str(data, p, rec_end)
                name, p = _str(data, p, rec_end)
                cls, p = _str(data, p, rec_end)
                value, p = _str(data, p, rec_end)
                injections.append({"iid": iid, "kind": kind or "", "name": name,
                                   "line": None if line < 0 else line, "cls": cls or "",
                                   "value": value or ""})
            elif typ == ord("F"):
                module, p = _str(data, p, rec_end)
                names, p = _str(data, p, rec_end)
                if names is not None and names.startswith(","):
                    names = [n for n in names[1:].split(",") if n]
                failed.append({"iid": iid, "module": module or "", "names": names})
            else:
                break
        except ValueError:
            break
        pos = rec_end
    return Journal(reached, injections, failed, flags)
