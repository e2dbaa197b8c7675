/* runtime/journal.h - layer 1 of the runtime: the run journal (journal.c).
 * Includes layer 0; see runtime/objects.h for the layering.
 *
 * The journal is memory the process that starts a run shares with it (a
 * parent that mapped it MAP_SHARED before forking the sandbox child).  Once a
 * Runtime is attached to it (Runtime.attach_journal), the marker bitmap lives
 * there and every injection and failed import is appended as it happens, so
 * a run that dies -- a segfault, a SIGKILL at the timeout or by the memory
 * limit, os._exit -- still tells its parent what it covered and injected.
 * The parent reads it with lexecutor_c/engine/journal.py and trusts nothing
 * in it (the executed code can write there too).
 *
 * Layout (little-endian):
 *     0   "LXJ1"
 *     4   u32 flags: bit 0 the log filled up (later records dropped),
 *                    bit 1 markers beyond the bitmap are not in it
 *     8   u64 log_used: bytes of complete records (advanced after a record)
 *     16  u64 bitmap_bytes
 *     24  u64 log_bytes
 *     32  bitmap[bitmap_bytes] (bit iid%8 of byte iid/8), then log[log_bytes]
 * A log record: u32 size (whole record), u8 type ('I' injection, 'F' failed
 * import), i64 iid, i64 line (-1: none), then its strings, each a u32 length
 * (0xffffffff: None) and UTF-8 bytes: injection kind, name, class, repr
 * (cut at LX_JOURNAL_REPR_MAX bytes); failed import module, names (a str
 * as it is, e.g. "*"; a tuple as ",a,b"; None for a plain import).
 */
#ifndef LX_RUNTIME_JOURNAL_H
#define LX_RUNTIME_JOURNAL_H

#include "runtime/objects.h"

#define LX_JOURNAL_HEADER 32
#define LX_JOURNAL_REPR_MAX 4096
#define LX_JOURNAL_LOG_FULL 1u
#define LX_JOURNAL_BITS_OVERFLOW 2u

/* Attach rt to the writable buffer obj (0 / -1 with an exception): the
 * marker bitmap moves into it when it is large enough.  Detach copies the
 * bitmap back to private memory and releases the buffer (never fails but
 * for memory, -1 with an exception then). */
int lx_journal_attach(lx_runtime_obj *rt, PyObject *obj);
int lx_journal_detach(lx_runtime_obj *rt);
/* A new run (Runtime.reset): the log and the flags start empty. */
void lx_journal_reset(lx_runtime_obj *rt);
/* The bitmap must grow past the shared one: note it (markers from here on
 * are private to the process). */
void lx_journal_bits_overflow(lx_runtime_obj *rt);

/* Append a record; best effort: never sets an exception (a value that
 * cannot be encoded is written as None). */
void lx_journal_injection(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind, PyObject *name,
                          PyObject *line, PyObject *cls, PyObject *repr);
void lx_journal_failed_import(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *module,
                              PyObject *names);

#endif
