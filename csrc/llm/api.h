/* llm/api.h - what module.c sees of the OpenAI-compatible chat-completions
 * client (llm/llm.c, libcurl + cJSON).  It keeps no module state and includes
 * nothing of the other folders. */
#ifndef LX_LLM_H
#define LX_LLM_H

#include <Python.h>

/* Adds llm_chat() and the LLMError exception to the module; 0 / -1. */
int lx_llm_exec(PyObject *m);

#endif
