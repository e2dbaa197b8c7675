/* runtime.h - module state of the runtime part (loaders, values, Dummy). */
#ifndef LX_RUNTIME_H
#define LX_RUNTIME_H

typedef struct {
    PyObject *placeholder;  /* filled in by the runtime part */
} lx_runtime_state;

#endif
