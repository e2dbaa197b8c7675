/* llm.h - OpenAI-compatible chat-completions client (llm.c). */
#ifndef LX_LLM_H
#define LX_LLM_H

#include <Python.h>

/* Adds llm_chat() and the LLMError exception to the module; 0 / -1. */
int lx_llm_exec(PyObject *m);

#endif
