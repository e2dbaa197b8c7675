// torch_shim.cpp - LibTorch inference for the neural value predictor.
//
// Built (only when torch is installed) as the separate extension
// lexecutor_c._torch_shim, linked against the torch wheel's libc10 and
// libtorch_cpu.  lexecutor_c/model/neural.py imports it on the first neural
// prediction, never at `import lexecutor_c`.
//
// Two layers:
//   * an extern "C" API (lx_model_*) over the LibTorch C++ API: load an
//     AOTInductor package exported by `lexecutor-c train` (the model compiled
//     ahead of time into a shared library with its weights; the tokenizer
//     description travels in the package's metadata as "tokenizer.txt"),
//     tokenize a query and return the top-k classes with probabilities;
//   * a small CPython module over that API (load, info, predict, tokenize).
//
// The package is compiled for one CPU level (x86-64-v3: AVX2 and FMA, see
// lexecutor_c/model/training/train.py); its metadata names it
// (AOTI_CPU_ISA) and the loader refuses a package this CPU cannot run
// instead of dying of SIGILL on the first query.
//
// The tokenizer is the one documented in lexecutor_c/model/neural.py (version 1);
// tests check that both give the same ids.
#include <Python.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

const char *const KINDS[] = {"name", "attribute", "call"};

struct Config {
    int64_t buckets = 0, max_len = 0, max_feats = 0, ctx = 0;
    std::vector<std::string> fine, coarse;
};

uint32_t fnv1a(const std::string &s) {
    uint32_t h = 0x811C9DC5u;
    for (unsigned char c : s) {
        h = (h ^ c) * 0x01000193u;
    }
    return h;
}

inline bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string lower(const std::string &s) {
    std::string out(s);
    for (auto &c : out) {
        if (is_upper((unsigned char)c)) c = (char)(c + 32);
    }
    return out;
}

std::vector<std::string> pieces(const std::string &w) {
    std::vector<std::string> out;
    std::string cur;
    size_t n = w.size();
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)w[i];
        if (c == '_') {
            if (!cur.empty()) { out.push_back(cur); cur.clear(); }
            continue;
        }
        if (is_upper(c) && !cur.empty() && i > 0) {
            unsigned char p = (unsigned char)w[i - 1];
            bool next_low = i + 1 < n && is_lower((unsigned char)w[i + 1]);
            if (is_lower(p) || is_digit(p) || (is_upper(p) && next_low)) {
                out.push_back(cur);
                cur.clear();
            }
        }
        cur.push_back((char)c);
    }
    if (!cur.empty()) out.push_back(cur);
    for (auto &p : out) p = lower(p);
    return out;
}

bool is_identifier(const std::string &w) {
    if (w.empty()) return false;
    unsigned char c0 = (unsigned char)w[0];
    if (!(is_upper(c0) || is_lower(c0) || c0 == '_')) return false;
    for (unsigned char c : w) {
        if (!(is_upper(c) || is_lower(c) || is_digit(c) || c == '_')) return false;
    }
    return true;
}

std::vector<std::string> word_features(const std::string &word, int64_t max_feats) {
    std::string w = word.substr(0, 32);
    std::vector<std::string> feats;
    feats.push_back("w:" + w);
    if (is_identifier(w)) {
        auto ps = pieces(w);
        if (ps.size() > 1 || (!ps.empty() && ps[0] != w)) {
            std::vector<std::string> seen;
            for (auto &p : ps) {
                if (std::find(seen.begin(), seen.end(), p) == seen.end()) seen.push_back(p);
                if (seen.size() == 4) break;
            }
            for (auto &p : seen) feats.push_back("s:" + p);
        }
    }
    std::string g = "^" + lower(w.substr(0, 24)) + "$";
    for (size_t i = 0; (int64_t)feats.size() < max_feats && i + 3 <= g.size(); i++) {
        feats.push_back("g:" + g.substr(i, 3));
    }
    if ((int64_t)feats.size() > max_feats) feats.resize((size_t)max_feats);
    return feats;
}

std::vector<std::string> split_ws(const std::string &s) {
    std::vector<std::string> out;
    size_t i = 0, n = s.size();
    while (i < n) {
        while (i < n && is_space((unsigned char)s[i])) i++;
        size_t j = i;
        while (j < n && !is_space((unsigned char)s[j])) j++;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

}  // namespace

// ---------------------------------------------------------------- C API

extern "C" {

struct lx_model {
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
    Config cfg;
    std::string path;
};

// The first line of an exception's message (LibTorch's carry backtraces).
static std::string first_line(const std::exception &e) {
    const c10::Error *ce = dynamic_cast<const c10::Error *>(&e);
    std::string what = ce ? ce->what_without_backtrace() : e.what();
    return what.substr(0, what.find('\n'));
}

// Whether this CPU runs code compiled for the vector ISA a package names
// (AOTI_CPU_ISA: "AVX2", "AVX512 AVX512_VNNI", "INVALID_VEC_ISA" for none,
// ...).  Unknown names are refused.
static bool cpu_runs(const std::string &isa, std::string &missing) {
    std::istringstream in(isa);
    std::string w;
    while (in >> w) {
        bool ok;
#if defined(__x86_64__) || defined(__i386__)
        if (w == "INVALID_VEC_ISA") ok = true;
        else if (w == "AVX2") ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        else if (w == "AVX512") ok = __builtin_cpu_supports("avx512f") &&
                                     __builtin_cpu_supports("avx512bw") &&
                                     __builtin_cpu_supports("avx512vl") &&
                                     __builtin_cpu_supports("avx512dq");
        else if (w == "AVX512_VNNI") ok = __builtin_cpu_supports("avx512vnni");
        else ok = false;
#else
        ok = (w == "INVALID_VEC_ISA");
#endif
        if (!ok) {
            missing = w;
            return false;
        }
    }
    return true;
}

static void set_err(char *err, size_t errlen, const std::string &msg) {
    if (err && errlen) {
        std::snprintf(err, errlen, "%s", msg.c_str());
    }
}

static bool parse_config(const std::string &text, Config &cfg, std::string &why) {
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != "lexecutor_c.tokenizer 1") {
        why = "the tokenizer description is not version 1";
        return false;
    }
    std::unordered_map<std::string, std::string> kv;
    while (std::getline(in, line)) {
        auto sp = line.find(' ');
        if (sp == std::string::npos) continue;
        kv[line.substr(0, sp)] = line.substr(sp + 1);
    }
    try {
        cfg.buckets = std::stoll(kv.at("buckets"));
        cfg.max_len = std::stoll(kv.at("max_len"));
        cfg.max_feats = std::stoll(kv.at("max_feats"));
        cfg.ctx = std::stoll(kv.at("ctx"));
        cfg.fine = split_ws(kv.at("fine"));
        cfg.coarse = split_ws(kv.at("coarse"));
    } catch (const std::exception &) {
        why = "the tokenizer description lacks a field or has a bad number";
        return false;
    }
    if (cfg.buckets < 2 || cfg.max_len < 3 || cfg.max_feats < 1 || cfg.ctx < 0 ||
        cfg.fine.empty() || cfg.coarse.empty()) {
        why = "the tokenizer description has out-of-range values";
        return false;
    }
    return true;
}

// Load a model; NULL with a message in err on failure.
lx_model *lx_model_load(const char *path, char *err, size_t errlen) {
    if (path == nullptr || *path == '\0') {
        set_err(err, errlen, "empty model path");
        return nullptr;
    }
    auto m = std::make_unique<lx_model>();
    m->path = path;
    // the metadata first: the package's shared library is loaded only when
    // it is ours and this CPU can run it
    std::unordered_map<std::string, std::string> meta;
    try {
        meta = torch::inductor::AOTIModelPackageLoader::load_metadata_from_package(path,
                                                                                    "model");
    } catch (const std::exception &e) {
        set_err(err, errlen, std::string("cannot load model ") + path + ": " + first_line(e));
        return nullptr;
    }
    auto tok = meta.find("tokenizer.txt");
    if (tok == meta.end() || tok->second.empty()) {
        set_err(err, errlen, std::string(path) + ": not a lexecutor_c model (no tokenizer.txt)");
        return nullptr;
    }
    auto fmt = meta.find("lexecutor_c.format");
    if (fmt != meta.end() && fmt->second != "1") {
        set_err(err, errlen, std::string(path) + ": model format " + fmt->second +
                                 " (this lexecutor_c reads format 1)");
        return nullptr;
    }
    std::string why;
    if (!parse_config(tok->second, m->cfg, why)) {
        set_err(err, errlen, std::string(path) + ": " + why);
        return nullptr;
    }
    auto platform = meta.find("AOTI_MACHINE");
    auto isa = meta.find("AOTI_CPU_ISA");
    std::string missing;
    if (isa != meta.end() && !cpu_runs(isa->second, missing)) {
        set_err(err, errlen, std::string(path) + ": compiled for " +
                                 (platform != meta.end() ? platform->second + " " : "") +
                                 isa->second + " but this CPU lacks " + missing +
                                 "; export it again here: lexecutor-c train "
                                 "--from-checkpoint CHECKPOINT --out MODEL");
        return nullptr;
    }
    try {
        // one runner, no locking between queries: the shim asks one at a time
        m->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(
            path, "model", /*run_single_threaded=*/true);
    } catch (const std::exception &e) {
        set_err(err, errlen, std::string("cannot load model ") + path + ": " + first_line(e));
        return nullptr;
    }
    // The first runs allocate the runner's buffers: do them here rather
    // than in the first queries.
    try {
        c10::InferenceMode guard;
        at::Tensor ids = at::zeros({1, m->cfg.max_len, m->cfg.max_feats}, at::kLong);
        ids.index_put_({0, 0, 0}, 1);
        for (int i = 0; i < 3; i++) {
            auto out = m->loader->run({ids});
            if (out.size() != 2) {
                set_err(err, errlen, std::string(path) +
                                         ": the model does not return (fine, coarse) logits");
                return nullptr;
            }
        }
    } catch (const std::exception &e) {
        set_err(err, errlen, std::string(path) + ": the model does not run on the tokenizer's "
                                 "input: " + first_line(e));
        return nullptr;
    }
    return m.release();
}

void lx_model_free(lx_model *m) { delete m; }

// Feature ids of a query, max_len x max_feats (row-major, 0 = padding).
// Returns the number of positions used, or -1 with err set.
int lx_model_tokenize(const lx_model *m, const char *name, const char *kind,
                      const char *before, const char *after, int64_t *ids, char *err,
                      size_t errlen) {
    const Config &c = m->cfg;
    if (name == nullptr || *name == '\0') {
        set_err(err, errlen, "empty input: the name is empty");
        return -1;
    }
    bool known = false;
    for (const char *k : KINDS) known = known || (kind && std::strcmp(kind, k) == 0);
    if (!known) {
        set_err(err, errlen, std::string("kind must be 'name', 'attribute' or 'call', not '") +
                                 (kind ? kind : "") + "'");
        return -1;
    }
    std::fill(ids, ids + c.max_len * c.max_feats, (int64_t)0);
    const uint32_t mod = (uint32_t)(c.buckets - 1);
    int64_t pos = 0;
    auto put = [&](const std::vector<std::string> &feats) {
        if (pos >= c.max_len) return;
        for (size_t f = 0; f < feats.size() && (int64_t)f < c.max_feats; f++) {
            ids[pos * c.max_feats + (int64_t)f] = (int64_t)(fnv1a(feats[f]) % mod) + 1;
        }
        pos++;
    };
    put(word_features(name, c.max_feats));
    put({std::string("k:") + kind});
    if (c.ctx > 0) {
        auto bw = split_ws(before ? before : "");
        size_t start = bw.size() > (size_t)c.ctx ? bw.size() - (size_t)c.ctx : 0;
        for (size_t i = start; i < bw.size(); i++) put(word_features(bw[i], c.max_feats));
    }
    put({"t:<mask>"});
    if (c.ctx > 0) {
        auto aw = split_ws(after ? after : "");
        for (size_t i = 0; i < aw.size() && (int64_t)i < c.ctx; i++)
            put(word_features(aw[i], c.max_feats));
    }
    return (int)pos;
}

// Top-k classes (indices into the fine or coarse class list) with
// probabilities.  Returns how many were written (<= k), or -1 with err set.
int lx_model_predict(lx_model *m, const char *name, const char *kind, const char *before,
                     const char *after, int coarse, int k, int *classes, float *scores,
                     char *err, size_t errlen) {
    const Config &c = m->cfg;
    if (k <= 0) {
        set_err(err, errlen, "k must be positive");
        return -1;
    }
    try {
        c10::InferenceMode guard;
        at::Tensor ids = at::zeros({1, c.max_len, c.max_feats}, at::kLong);
        if (lx_model_tokenize(m, name, kind, before, after, ids.data_ptr<int64_t>(), err,
                              errlen) < 0) {
            return -1;
        }
        auto out = m->loader->run({ids});
        if (out.size() != 2) {
            set_err(err, errlen, "the model does not return (fine, coarse) logits");
            return -1;
        }
        at::Tensor logits = out[coarse ? 1 : 0].reshape({-1});
        auto probs = at::softmax(logits.to(at::kFloat), 0);
        int64_t n = probs.size(0);
        const std::vector<std::string> &names = coarse ? c.coarse : c.fine;
        if (n != (int64_t)names.size()) {
            set_err(err, errlen, "the model's output does not match its class list");
            return -1;
        }
        int kk = (int)std::min<int64_t>(k, n);
        auto top = at::topk(probs, kk);
        auto vals = std::get<0>(top);
        auto idx = std::get<1>(top);
        for (int i = 0; i < kk; i++) {
            classes[i] = (int)idx[i].item<int64_t>();
            scores[i] = vals[i].item<float>();
        }
        return kk;
    } catch (const c10::Error &e) {
        std::string what = e.what_without_backtrace();
        set_err(err, errlen, "model evaluation failed: " + what.substr(0, what.find('\n')));
        return -1;
    } catch (const std::exception &e) {
        set_err(err, errlen, std::string("model evaluation failed: ") + e.what());
        return -1;
    }
}

const char *lx_model_class_name(const lx_model *m, int coarse, int idx) {
    const auto &names = coarse ? m->cfg.coarse : m->cfg.fine;
    if (idx < 0 || (size_t)idx >= names.size()) return nullptr;
    return names[(size_t)idx].c_str();
}

}  // extern "C"

// ---------------------------------------------------------------- Python module

namespace {

const char *CAPSULE = "lexecutor_c._torch_shim.model";

void capsule_free(PyObject *cap) {
    auto *m = (lx_model *)PyCapsule_GetPointer(cap, CAPSULE);
    if (m) lx_model_free(m);
}

lx_model *get_model(PyObject *cap) {
    if (!PyCapsule_IsValid(cap, CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "expected a model handle from _torch_shim.load()");
        return nullptr;
    }
    return (lx_model *)PyCapsule_GetPointer(cap, CAPSULE);
}

// UTF-8 (lone surrogates passed through, as the Python tokenizer does)
bool utf8(PyObject *s, const char *what, std::string &out) {
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(s)->tp_name);
        return false;
    }
    PyObject *b = PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
    if (!b) return false;
    out.assign(PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b));
    Py_DECREF(b);
    if (out.find('\0') != std::string::npos) {
        PyErr_Format(PyExc_ValueError, "%s contains a NUL character", what);
        return false;
    }
    return true;
}

PyObject *py_load(PyObject *, PyObject *arg) {
    PyObject *bytes = nullptr;
    if (!PyUnicode_FSConverter(arg, &bytes)) return nullptr;
    std::string path(PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    char err[1024] = {0};
    lx_model *m;
    Py_BEGIN_ALLOW_THREADS
    m = lx_model_load(path.c_str(), err, sizeof err);
    Py_END_ALLOW_THREADS
    if (!m) {
        PyErr_SetString(PyExc_ValueError, err);
        return nullptr;
    }
    PyObject *cap = PyCapsule_New(m, CAPSULE, capsule_free);
    if (!cap) lx_model_free(m);
    return cap;
}

PyObject *str_list(const std::vector<std::string> &v) {
    PyObject *l = PyList_New((Py_ssize_t)v.size());
    if (!l) return nullptr;
    for (size_t i = 0; i < v.size(); i++) {
        PyObject *s = PyUnicode_FromString(v[i].c_str());
        if (!s) { Py_DECREF(l); return nullptr; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, s);
    }
    return l;
}

PyObject *py_info(PyObject *, PyObject *cap) {
    lx_model *m = get_model(cap);
    if (!m) return nullptr;
    const Config &c = m->cfg;
    PyObject *fine = str_list(c.fine), *coarse = str_list(c.coarse);
    if (!fine || !coarse) { Py_XDECREF(fine); Py_XDECREF(coarse); return nullptr; }
    return Py_BuildValue("{s:s,s:L,s:L,s:L,s:L,s:N,s:N}", "path", m->path.c_str(),
                         "buckets", (long long)c.buckets, "max_len", (long long)c.max_len,
                         "max_feats", (long long)c.max_feats, "ctx", (long long)c.ctx,
                         "fine", fine, "coarse", coarse);
}

bool query_args(PyObject *const *args, std::string &name, std::string &kind,
                std::string &before, std::string &after) {
    return utf8(args[1], "name", name) && utf8(args[2], "kind", kind) &&
           utf8(args[3], "before", before) && utf8(args[4], "after", after);
}

PyObject *py_tokenize(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "tokenize(model, name, kind, before, after)");
        return nullptr;
    }
    lx_model *m = get_model(args[0]);
    if (!m) return nullptr;
    std::string name, kind, before, after;
    if (!query_args(args, name, kind, before, after)) return nullptr;
    const Config &c = m->cfg;
    std::vector<int64_t> ids((size_t)(c.max_len * c.max_feats));
    char err[512] = {0};
    int n = lx_model_tokenize(m, name.c_str(), kind.c_str(), before.c_str(), after.c_str(),
                              ids.data(), err, sizeof err);
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return nullptr;
    }
    PyObject *rows = PyList_New(n);
    if (!rows) return nullptr;
    for (int p = 0; p < n; p++) {
        PyObject *row = PyList_New(0);
        if (!row) { Py_DECREF(rows); return nullptr; }
        for (int64_t f = 0; f < c.max_feats; f++) {
            int64_t v = ids[(size_t)(p * c.max_feats + f)];
            if (v == 0) break;
            PyObject *o = PyLong_FromLongLong(v);
            if (!o || PyList_Append(row, o) < 0) {
                Py_XDECREF(o); Py_DECREF(row); Py_DECREF(rows);
                return nullptr;
            }
            Py_DECREF(o);
        }
        PyList_SET_ITEM(rows, p, row);
    }
    return rows;
}

PyObject *py_predict(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 5 || nargs > 7) {
        PyErr_SetString(PyExc_TypeError,
                        "predict(model, name, kind, before, after, k=5, coarse=False)");
        return nullptr;
    }
    lx_model *m = get_model(args[0]);
    if (!m) return nullptr;
    std::string name, kind, before, after;
    if (!query_args(args, name, kind, before, after)) return nullptr;
    long k = 5;
    if (nargs > 5) {
        k = PyLong_AsLong(args[5]);
        if (k == -1 && PyErr_Occurred()) return nullptr;
        if (k <= 0 || k > 1000) {
            PyErr_SetString(PyExc_ValueError, "k must be between 1 and 1000");
            return nullptr;
        }
    }
    int coarse = 0;
    if (nargs > 6) {
        coarse = PyObject_IsTrue(args[6]);
        if (coarse < 0) return nullptr;
    }
    std::vector<int> cls((size_t)k);
    std::vector<float> sc((size_t)k);
    char err[1024] = {0};
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = lx_model_predict(m, name.c_str(), kind.c_str(), before.c_str(), after.c_str(), coarse,
                         (int)k, cls.data(), sc.data(), err, sizeof err);
    Py_END_ALLOW_THREADS
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return nullptr;
    }
    PyObject *out = PyList_New(n);
    if (!out) return nullptr;
    for (int i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(sd)", lx_model_class_name(m, coarse, cls[(size_t)i]),
                                    (double)sc[(size_t)i]);
        if (!t) { Py_DECREF(out); return nullptr; }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

PyObject *py_set_threads(PyObject *, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return nullptr;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 1");
        return nullptr;
    }
    at::set_num_threads((int)n);
    Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"load", (PyCFunction)py_load, METH_O,
     "load(path) -> model handle; ValueError when the file is missing or not a model"},
    {"info", (PyCFunction)py_info, METH_O, "info(model) -> dict of the tokenizer settings"},
    {"tokenize", (PyCFunction)(void (*)(void))py_tokenize, METH_FASTCALL,
     "tokenize(model, name, kind, before, after) -> feature ids per position"},
    {"predict", (PyCFunction)(void (*)(void))py_predict, METH_FASTCALL,
     "predict(model, name, kind, before, after, k=5, coarse=False) -> [(class, prob)]"},
    {"set_threads", (PyCFunction)py_set_threads, METH_O,
     "set_threads(n): intra-op threads of LibTorch in this process"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "lexecutor_c._torch_shim",
    "LibTorch inference for the neural value predictor (csrc/torch_shim.cpp).", -1, methods,
    nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__torch_shim(void) {
    // one query at a time: a single intra-op thread is fastest and leaves
    // the other cores to the code being executed
    at::set_num_threads(1);
    return PyModule_Create(&module_def);
}
