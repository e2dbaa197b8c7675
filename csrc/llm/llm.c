/* llm/llm.c - an OpenAI-compatible chat-completions client on libcurl + cJSON.
 *
 *   _core.llm_chat(base_url=None, api_key=None, model=None, messages=...,
 *                  n=1, temperature=None, timeout=60.0, max_retries=3, *,
 *                  connect_timeout=10.0, max_tokens=None, backoff=0.5,
 *                  max_backoff=30.0, max_response=16 MiB,
 *                  prompt_price=0.0, completion_price=0.0,
 *                  response_format=None)
 *     -> {"choices": [{"content", "finish_reason", "index"}], "usage":
 *         {"prompt_tokens", "completion_tokens", "total_tokens"}, "cost",
 *         "attempts", "model", "status"}
 *
 * base_url, api_key and model fall back to LEXECUTOR_LLM_BASE_URL,
 * LEXECUTOR_LLM_API_KEY and LEXECUTOR_LLM_MODEL.  The request goes to
 * base_url + "/chat/completions" (unless base_url already ends so).  429
 * and 5xx answers are retried up to max_retries times with exponential
 * backoff (backoff * 2**attempt seconds, at most max_backoff), or after the
 * server's Retry-After when it sends one (capped the same way).  The GIL is
 * released during transfers and waits.  Failures raise _core.LLMError
 * (a RuntimeError) whose attributes say what happened: kind ("config",
 * "connect", "timeout", "http", "protocol", "too_large", "transport"),
 * status (the last HTTP status or None), attempts.  Prices are per 1000
 * tokens.
 */
#include "llm/api.h"

#include <cJSON.h>
#include <curl/curl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char *data;
    size_t len, cap, max;
    int too_large;
} lx_buf;

static size_t
write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    lx_buf *b = (lx_buf *)userdata;
    size_t n = size * nmemb;
    if (n == 0) {
        return 0;
    }
    if (b->len + n > b->max) {
        b->too_large = 1;
        return 0;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *d = realloc(b->data, cap);
        if (d == NULL) {
            return 0;              /* curl reports CURLE_WRITE_ERROR */
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

/* Raise _core.LLMError(msg) with kind/status/attempts attributes. */
static PyObject *
llm_error(PyObject *module, const char *kind, long status, int attempts, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyObject *cls = PyObject_GetAttrString(module, "LLMError");
    if (cls == NULL) {
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(cls, "s", msg);
    Py_DECREF(cls);
    if (exc == NULL) {
        return NULL;
    }
    PyObject *st = status > 0 ? PyLong_FromLong(status) : Py_NewRef(Py_None);
    PyObject *at = PyLong_FromLong(attempts);
    PyObject *kd = PyUnicode_FromString(kind);
    if (st == NULL || at == NULL || kd == NULL ||
        PyObject_SetAttrString(exc, "kind", kd) < 0 ||
        PyObject_SetAttrString(exc, "status", st) < 0 ||
        PyObject_SetAttrString(exc, "attempts", at) < 0) {
        Py_XDECREF(st);
        Py_XDECREF(at);
        Py_XDECREF(kd);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(st);
    Py_DECREF(at);
    Py_DECREF(kd);
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* A str argument, or the environment variable, or NULL.  Returns a
 * malloc'ed copy through *out; -1 with an exception set on bad types. */
static int
str_or_env(PyObject *arg, const char *env, const char *what, char **out)
{
    *out = NULL;
    if (arg != NULL && arg != Py_None) {
        if (!PyUnicode_Check(arg)) {
            PyErr_Format(PyExc_TypeError, "%s must be a str or None, not %.100s", what,
                         Py_TYPE(arg)->tp_name);
            return -1;
        }
        Py_ssize_t size;
        const char *s = PyUnicode_AsUTF8AndSize(arg, &size);
        if (s == NULL) {
            return -1;
        }
        if (strlen(s) != (size_t)size) {
            PyErr_Format(PyExc_ValueError, "%s contains a NUL character", what);
            return -1;
        }
        *out = strdup(s);
    }
    else {
        const char *s = getenv(env);
        if (s == NULL || *s == '\0') {
            return 0;
        }
        *out = strdup(s);
    }
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The request body, built as a cJSON object.  NULL with an exception set. */
static char *
build_body(const char *model, PyObject *messages, long n, PyObject *temperature,
           PyObject *max_tokens, PyObject *response_format)
{
    if (!PyList_Check(messages) && !PyTuple_Check(messages)) {
        PyErr_SetString(PyExc_TypeError, "messages must be a list of {'role', 'content'} dicts");
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(messages);
    if (count == 0) {
        PyErr_SetString(PyExc_ValueError, "messages must not be empty");
        return NULL;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = NULL;
    char *out = NULL;
    if (root == NULL || cJSON_AddStringToObject(root, "model", model) == NULL ||
        (arr = cJSON_AddArrayToObject(root, "messages")) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *msg = PySequence_Fast_GET_ITEM(messages, i);
        if (!PyDict_Check(msg)) {
            PyErr_Format(PyExc_TypeError, "messages[%zd] must be a dict, not %.100s", i,
                         Py_TYPE(msg)->tp_name);
            goto done;
        }
        PyObject *role = PyDict_GetItemString(msg, "role");
        PyObject *content = PyDict_GetItemString(msg, "content");
        if (role == NULL || content == NULL || !PyUnicode_Check(role) ||
            !PyUnicode_Check(content)) {
            PyErr_Format(PyExc_ValueError,
                         "messages[%zd] needs str 'role' and 'content' entries", i);
            goto done;
        }
        const char *r = PyUnicode_AsUTF8(role);
        const char *c = PyUnicode_AsUTF8(content);
        if (r == NULL || c == NULL) {
            goto done;
        }
        cJSON *m = cJSON_CreateObject();
        if (m == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        cJSON_AddItemToArray(arr, m);
        if (cJSON_AddStringToObject(m, "role", r) == NULL ||
            cJSON_AddStringToObject(m, "content", c) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (n != 1 && cJSON_AddNumberToObject(root, "n", (double)n) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (temperature != NULL && temperature != Py_None) {
        double t = PyFloat_AsDouble(temperature);
        if (t == -1.0 && PyErr_Occurred()) {
            goto done;
        }
        if (cJSON_AddNumberToObject(root, "temperature", t) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (max_tokens != NULL && max_tokens != Py_None) {
        long mt = PyLong_AsLong(max_tokens);
        if (mt == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (mt <= 0) {
            PyErr_SetString(PyExc_ValueError, "max_tokens must be positive");
            goto done;
        }
        if (cJSON_AddNumberToObject(root, "max_tokens", (double)mt) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (response_format != NULL && response_format != Py_None) {
        if (!PyUnicode_Check(response_format)) {
            PyErr_SetString(PyExc_TypeError, "response_format must be a str such as "
                                             "'json_object', or None");
            goto done;
        }
        const char *rf = PyUnicode_AsUTF8(response_format);
        if (rf == NULL) {
            goto done;
        }
        cJSON *o = cJSON_AddObjectToObject(root, "response_format");
        if (o == NULL || cJSON_AddStringToObject(o, "type", rf) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    out = cJSON_PrintUnformatted(root);
    if (out == NULL) {
        PyErr_NoMemory();
    }
done:
    cJSON_Delete(root);
    return out;
}

static void
sleep_seconds(double s)
{
    if (s <= 0) {
        return;
    }
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    Py_BEGIN_ALLOW_THREADS
    while (nanosleep(&ts, &ts) != 0) {
        /* EINTR: go on sleeping the rest */
    }
    Py_END_ALLOW_THREADS
}

static long
json_long(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

/* Turn a successful response body into the result dict. */
static PyObject *
parse_response(PyObject *module, const lx_buf *b, int attempts, long status,
               double prompt_price, double completion_price)
{
    cJSON *root = cJSON_ParseWithLength(b->data ? b->data : "", b->len);
    if (root == NULL) {
        char head[121];
        size_t k = b->len < 120 ? b->len : 120;
        memcpy(head, b->data ? b->data : "", k);
        head[k] = '\0';
        return llm_error(module, "protocol", status, attempts,
                         "malformed JSON in the response (%zu bytes, starting %.120s)",
                         b->len, head);
    }
    PyObject *result = NULL, *choices = NULL, *usage = NULL;
    const cJSON *jchoices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    if (!cJSON_IsArray(jchoices)) {
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
        const cJSON *em = cJSON_IsObject(err) ? cJSON_GetObjectItemCaseSensitive(err, "message")
                                              : NULL;
        llm_error(module, "protocol", status, attempts,
                  "response has no 'choices' array%s%.300s", cJSON_IsString(em) ? ": " : "",
                  cJSON_IsString(em) ? em->valuestring : "");
        goto done;
    }
    choices = PyList_New(0);
    if (choices == NULL) {
        goto done;
    }
    const cJSON *ch;
    int idx = 0;
    cJSON_ArrayForEach(ch, jchoices) {
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ch, "message");
        const cJSON *content = cJSON_IsObject(msg)
                                   ? cJSON_GetObjectItemCaseSensitive(msg, "content") : NULL;
        const cJSON *fin = cJSON_GetObjectItemCaseSensitive(ch, "finish_reason");
        const cJSON *jidx = cJSON_GetObjectItemCaseSensitive(ch, "index");
        if (!cJSON_IsString(content) && !cJSON_IsNull(content)) {
            llm_error(module, "protocol", status, attempts,
                      "choices[%d] has no message.content string", idx);
            goto done;
        }
        PyObject *d = Py_BuildValue(
            "{s:s,s:s,s:i}", "content", cJSON_IsString(content) ? content->valuestring : "",
            "finish_reason", cJSON_IsString(fin) ? fin->valuestring : "",
            "index", cJSON_IsNumber(jidx) ? (int)jidx->valuedouble : idx);
        if (d == NULL || PyList_Append(choices, d) < 0) {
            Py_XDECREF(d);
            goto done;
        }
        Py_DECREF(d);
        idx++;
    }
    const cJSON *ju = cJSON_GetObjectItemCaseSensitive(root, "usage");
    long pt = cJSON_IsObject(ju) ? json_long(ju, "prompt_tokens") : 0;
    long ct = cJSON_IsObject(ju) ? json_long(ju, "completion_tokens") : 0;
    long tt = cJSON_IsObject(ju) ? json_long(ju, "total_tokens") : 0;
    if (tt == 0) {
        tt = pt + ct;
    }
    usage = Py_BuildValue("{s:l,s:l,s:l}", "prompt_tokens", pt, "completion_tokens", ct,
                          "total_tokens", tt);
    if (usage == NULL) {
        goto done;
    }
    const cJSON *jm = cJSON_GetObjectItemCaseSensitive(root, "model");
    double cost = (double)pt / 1000.0 * prompt_price + (double)ct / 1000.0 * completion_price;
    result = Py_BuildValue("{s:O,s:O,s:d,s:i,s:s,s:l}", "choices", choices, "usage", usage,
                           "cost", cost, "attempts", attempts, "model",
                           cJSON_IsString(jm) ? jm->valuestring : "", "status", status);
done:
    Py_XDECREF(choices);
    Py_XDECREF(usage);
    cJSON_Delete(root);
    return result;
}

typedef struct {
    CURLcode code;
    long status;
    curl_off_t retry_after;
    char content_type[128];
    char errbuf[CURL_ERROR_SIZE];
} lx_transfer;

static void
do_transfer(CURL *h, lx_buf *b, lx_transfer *t)
{
    b->len = 0;
    b->too_large = 0;
    if (b->data) {
        b->data[0] = '\0';
    }
    t->errbuf[0] = '\0';
    t->status = 0;
    t->retry_after = 0;
    t->content_type[0] = '\0';
    Py_BEGIN_ALLOW_THREADS
    t->code = curl_easy_perform(h);
    Py_END_ALLOW_THREADS
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &t->status);
    curl_off_t ra = 0;
    if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK) {
        t->retry_after = ra;
    }
    char *ct = NULL;
    if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct != NULL) {
        snprintf(t->content_type, sizeof t->content_type, "%s", ct);
    }
}

static PyObject *
llm_chat(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"base_url", "api_key", "model", "messages", "n", "temperature",
                             "timeout", "max_retries", "connect_timeout", "max_tokens",
                             "backoff", "max_backoff", "max_response", "prompt_price",
                             "completion_price", "response_format", NULL};
    PyObject *base_arg = Py_None, *key_arg = Py_None, *model_arg = Py_None;
    PyObject *messages = NULL, *temperature = Py_None, *max_tokens = Py_None;
    PyObject *response_format = Py_None;
    long n = 1, max_retries = 3;
    double timeout = 60.0, connect_timeout = 10.0, backoff = 0.5, max_backoff = 30.0;
    double prompt_price = 0.0, completion_price = 0.0;
    Py_ssize_t max_response = 16 * 1024 * 1024;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOOlOdl$dOddnddO:llm_chat", kwlist,
                                     &base_arg, &key_arg, &model_arg, &messages, &n,
                                     &temperature, &timeout, &max_retries, &connect_timeout,
                                     &max_tokens, &backoff, &max_backoff, &max_response,
                                     &prompt_price, &completion_price, &response_format)) {
        return NULL;
    }
    if (messages == NULL) {
        PyErr_SetString(PyExc_TypeError, "llm_chat() needs messages");
        return NULL;
    }
    if (n < 1 || n > 128) {
        PyErr_SetString(PyExc_ValueError, "n must be between 1 and 128");
        return NULL;
    }
    if (!(timeout > 0) || !(connect_timeout > 0) || timeout > 86400 || connect_timeout > 86400) {
        PyErr_SetString(PyExc_ValueError, "timeouts must be positive numbers of seconds "
                                          "(at most a day)");
        return NULL;
    }
    if (max_retries < 0 || max_retries > 100 || !(backoff >= 0) || !(max_backoff >= 0)) {
        PyErr_SetString(PyExc_ValueError, "max_retries must be in 0..100 and backoffs >= 0");
        return NULL;
    }
    if (max_response < 1) {
        PyErr_SetString(PyExc_ValueError, "max_response must be positive");
        return NULL;
    }
    char *base = NULL, *key = NULL, *model = NULL, *body = NULL, *url = NULL;
    struct curl_slist *headers = NULL;
    CURL *h = NULL;
    PyObject *result = NULL;
    lx_buf buf = {NULL, 0, 0, (size_t)max_response, 0};
    if (str_or_env(base_arg, "LEXECUTOR_LLM_BASE_URL", "base_url", &base) < 0 ||
        str_or_env(key_arg, "LEXECUTOR_LLM_API_KEY", "api_key", &key) < 0 ||
        str_or_env(model_arg, "LEXECUTOR_LLM_MODEL", "model", &model) < 0) {
        goto done;
    }
    if (base == NULL) {
        llm_error(module, "config", 0, 0, "no LLM endpoint: pass base_url or set "
                                          "LEXECUTOR_LLM_BASE_URL");
        goto done;
    }
    if (model == NULL) {
        llm_error(module, "config", 0, 0, "no model: pass model or set LEXECUTOR_LLM_MODEL");
        goto done;
    }
    if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0) {
        llm_error(module, "config", 0, 0, "base_url must start with http:// or https://");
        goto done;
    }
    body = build_body(model, messages, n, temperature, max_tokens, response_format);
    if (body == NULL) {
        goto done;
    }
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/') {
        base[--bl] = '\0';
    }
    static const char suffix[] = "/chat/completions";
    size_t sl = strlen(suffix);
    int has_suffix = bl >= sl && strcmp(base + bl - sl, suffix) == 0;
    url = malloc(bl + sl + 1);
    if (url == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(url, base, bl);
    memcpy(url + bl, has_suffix ? "" : suffix, has_suffix ? 1 : sl + 1);
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = headers ? curl_slist_append(headers, "Accept: application/json") : NULL;
    if (headers != NULL && key != NULL) {
        size_t kl = strlen(key) + 32;
        char *auth = malloc(kl);
        if (auth == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        snprintf(auth, kl, "Authorization: Bearer %s", key);
        struct curl_slist *nh = curl_slist_append(headers, auth);
        memset(auth, 0, kl);
        free(auth);
        headers = nh ? nh : (curl_slist_free_all(headers), NULL);
    }
    if (headers == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    h = curl_easy_init();
    if (h == NULL) {
        llm_error(module, "transport", 0, 0, "curl_easy_init failed");
        goto done;
    }
    lx_transfer t;
    memset(&t, 0, sizeof t);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &buf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_timeout * 1000));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t.errbuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "lexecutor_c-llm/0.1");
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    int attempts = 0;
    for (;;) {
        attempts++;
        do_transfer(h, &buf, &t);
        if (PyErr_CheckSignals() < 0) {
            goto done;
        }
        if (t.code == CURLE_WRITE_ERROR && buf.too_large) {
            llm_error(module, "too_large", t.status, attempts,
                      "response larger than max_response (%zd bytes)", max_response);
            goto done;
        }
        if (t.code == CURLE_WRITE_ERROR) {
            PyErr_NoMemory();
            goto done;
        }
        if (t.code == CURLE_OPERATION_TIMEDOUT) {
            llm_error(module, "timeout", t.status, attempts,
                      "no complete answer from %s within %.3g s (%s)", url, timeout, t.errbuf);
            goto done;
        }
        if (t.code == CURLE_COULDNT_CONNECT || t.code == CURLE_COULDNT_RESOLVE_HOST ||
            t.code == CURLE_COULDNT_RESOLVE_PROXY) {
            llm_error(module, "connect", 0, attempts, "cannot connect to %s: %s", url,
                      t.errbuf[0] ? t.errbuf : curl_easy_strerror(t.code));
            goto done;
        }
        if (t.code != CURLE_OK) {
            llm_error(module, "transport", t.status, attempts, "transfer to %s failed: %s",
                      url, t.errbuf[0] ? t.errbuf : curl_easy_strerror(t.code));
            goto done;
        }
        int retryable = t.status == 429 || (t.status >= 500 && t.status <= 599);
        if (retryable && attempts <= max_retries) {
            double wait = backoff * (double)(1L << (attempts - 1 < 20 ? attempts - 1 : 20));
            if (t.retry_after > 0) {
                wait = (double)t.retry_after;
            }
            if (wait > max_backoff) {
                wait = max_backoff;
            }
            sleep_seconds(wait);
            if (PyErr_CheckSignals() < 0) {
                goto done;
            }
            continue;
        }
        if (t.status < 200 || t.status > 299) {
            char head[201];
            size_t k = buf.len < 200 ? buf.len : 200;
            memcpy(head, buf.data ? buf.data : "", k);
            head[k] = '\0';
            llm_error(module, "http", t.status, attempts, "HTTP %ld from %s%s after %d "
                      "attempt(s): %.200s", t.status, url, retryable ? " (retries exhausted)" : "",
                      attempts, head);
            goto done;
        }
        if (strstr(t.content_type, "json") == NULL) {
            llm_error(module, "protocol", t.status, attempts,
                      "unexpected content type %.100s from %s (expected application/json)",
                      t.content_type[0] ? t.content_type : "(none)", url);
            goto done;
        }
        result = parse_response(module, &buf, attempts, t.status, prompt_price,
                                completion_price);
        break;
    }
done:
    if (h != NULL) {
        curl_easy_cleanup(h);
    }
    curl_slist_free_all(headers);
    if (key != NULL) {
        memset(key, 0, strlen(key));
    }
    free(key);
    free(base);
    free(model);
    free(url);
    if (body != NULL) {
        cJSON_free(body);
    }
    free(buf.data);
    return result;
}

static PyMethodDef llm_methods[] = {
    {"llm_chat", (PyCFunction)(void (*)(void))llm_chat, METH_VARARGS | METH_KEYWORDS,
     "llm_chat(base_url=None, api_key=None, model=None, messages=..., n=1, temperature=None,\n"
     "         timeout=60.0, max_retries=3, *, connect_timeout=10.0, max_tokens=None,\n"
     "         backoff=0.5, max_backoff=30.0, max_response=16777216, prompt_price=0.0,\n"
     "         completion_price=0.0, response_format=None) -> dict\n\n"
     "One OpenAI-compatible chat-completions request (see csrc/llm.c)."},
    {NULL, NULL, 0, NULL},
};

int
lx_llm_exec(PyObject *m)
{
    static int curl_ready = 0;
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            PyErr_SetString(PyExc_ImportError, "curl_global_init failed");
            return -1;
        }
        curl_ready = 1;
    }
    PyObject *err = PyErr_NewExceptionWithDoc(
        "lexecutor_c._core.LLMError",
        "An LLM request failed; .kind, .status and .attempts say how.",
        PyExc_RuntimeError, NULL);
    if (err == NULL) {
        return -1;
    }
    if (PyModule_AddObject(m, "LLMError", err) < 0) {
        Py_DECREF(err);
        return -1;
    }
    return PyModule_AddFunctions(m, llm_methods);
}
