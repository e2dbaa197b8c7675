/* confine.c - _core.sandbox_fork(): a child confined in layers.
 *
 * The order of the steps (the per-run hot path of lexecutor_c.sandbox):
 *
 *   parent   arguments -> plain C (lx_confine); PyOS_BeforeFork; fork()
 *   child 1  setsid; join the pids cgroup; unprivileged caller: new user
 *            namespace mapping the caller's own ids; new mount, IPC/UTS/
 *            cgroup and network namespaces (or join a prepared empty one);
 *            new PID namespace; fork() child 2, then only wait for it and
 *            leave the same way (exit code or signal): the parent's wait
 *            status and rusage stay those of the run
 *   child 2  init of the PID namespace; dies with child 1 (PDEATHSIG);
 *            environment replaced by the allow-listed one (the inherited
 *            block in memory zeroed); read-only minimal root (mounts.c);
 *            caller root: drops to the unprivileged uid/gid, then a user
 *            namespace of its own mapping just that id; standard streams,
 *            every other descriptor closed (close_range); capabilities
 *            dropped; no_new_privs; Landlock (landlock.c); seccomp
 *            (seccomp.c); not dumpable (no core dumps, not even through a
 *            core_pattern pipe) -- then returns to Python, which sets the
 *            rlimits and runs the function.
 *
 * Each layer is required (failure raises OSError in the child: the parent
 * reports the run as a sandbox error -- fail closed), optional (skipped,
 * with the reason, when the kernel refuses) or off.  Without a PID
 * namespace there is no second child.
 */
#define _GNU_SOURCE
#include "lx.h"
#include "sandbox/api.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const layer_names[LX_L_NLAYERS] = {
    "userns", "pidns", "mountns", "netns", "ipcns", "landlock", "seccomp",
};

void
lx_sb_fail(lx_confine *cfg, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cfg->err, sizeof(cfg->err), fmt, ap);
    va_end(ap);
    cfg->err_errno = err;
}

void
lx_sb_mark(lx_confine *cfg, const char *step)
{
    struct timespec ts;
    if (!cfg->trace || cfg->nmarks >= 32) {
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cfg->mark_name[cfg->nmarks] = step;
    cfg->mark_time[cfg->nmarks] = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    cfg->nmarks++;
}

static int
layer_index(unsigned bit)
{
    for (int i = 0; i < LX_L_NLAYERS; i++) {
        if (bit == (1u << i)) {
            return i;
        }
    }
    return 0;
}

/* A layer's step failed with `err` (cfg->err says where): required -> -1;
 * optional -> note why and carry on (0). */
static int
layer_failed(lx_confine *cfg, unsigned bit)
{
    if (cfg->required & bit) {
        return -1;
    }
    int i = layer_index(bit);
    snprintf(cfg->why[i], LX_WHY_MAX, "%s: %s", cfg->err, strerror(cfg->err_errno));
    cfg->err[0] = '\0';
    cfg->err_errno = 0;
    return 0;
}

static int
wanted(const lx_confine *cfg, unsigned bit)
{
    return ((cfg->required | cfg->optional) & bit) != 0;
}

/* A layer's first step: ENOSYS when the tests simulate its absence. */
static int
simulated(lx_confine *cfg, unsigned bit, const char *what)
{
    if (cfg->simulate_missing & bit) {
        lx_sb_fail(cfg, ENOSYS, "%s (simulated)", what);
        return 1;
    }
    return 0;
}

static int
unshare_layer(lx_confine *cfg, unsigned bit, int flags, const char *what)
{
    if (!wanted(cfg, bit)) {
        return 0;
    }
    if (simulated(cfg, bit, what) || unshare(flags) < 0) {
        if (cfg->err[0] == '\0') {
            lx_sb_fail(cfg, errno, "%s", what);
        }
        return layer_failed(cfg, bit);
    }
    cfg->applied |= bit;
    return 0;
}

/* New user namespace in which the caller's ids (uid, gid, outside) appear
 * as themselves. */
static int
write_proc_self(int procfd, const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof(path), "%sself/%s", procfd >= 0 ? "" : "/proc/", name);
    int fd = openat(procfd >= 0 ? procfd : AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int saved = errno;
    close(fd);
    if (w != (ssize_t)n) {
        errno = w < 0 ? saved : EIO;
        return -1;
    }
    return 0;
}

/* procfd: the host's /proc (kept across the pivot for a child without a
 * /proc of its own), or -1 for the /proc in view. */
static int
enter_userns(lx_confine *cfg, uid_t uid, gid_t gid, int procfd)
{
    char map[64];
    if (simulated(cfg, LX_L_USERNS, "userns: unshare")) {
        return layer_failed(cfg, LX_L_USERNS);
    }
    if (unshare(CLONE_NEWUSER) < 0) {
        lx_sb_fail(cfg, errno, "userns: unshare");
        return layer_failed(cfg, LX_L_USERNS);
    }
    /* from here on a failure cannot be undone: always an error */
    if (write_proc_self(procfd, "setgroups", "deny") < 0 && errno != ENOENT) {
        lx_sb_fail(cfg, errno, "userns: /proc/self/setgroups");
        return -1;
    }
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
    if (write_proc_self(procfd, "uid_map", map) < 0) {
        lx_sb_fail(cfg, errno, "userns: uid_map");
        return -1;
    }
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
    if (write_proc_self(procfd, "gid_map", map) < 0) {
        lx_sb_fail(cfg, errno, "userns: gid_map");
        return -1;
    }
    cfg->applied |= LX_L_USERNS;
    return 0;
}

/* Child 1 after forking child 2: wait for it, then end the same way. */
static void __attribute__((noreturn))
mirror(pid_t child, int keep)
{
    sigset_t all;
    int st;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    if (keep > 0) {
        syscall(SYS_close_range, 0, keep - 1, 0);
    }
    syscall(SYS_close_range, keep + 1, ~0U, 0);
    while (waitpid(child, &st, __WALL) < 0) {
        if (errno != EINTR) {
            _exit(70);
        }
    }
    if (WIFEXITED(st)) {
        _exit(WEXITSTATUS(st));
    }
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
    struct rlimit zero = {0, 0};
    setrlimit(RLIMIT_CORE, &zero);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), sig);
    _exit(128 + sig);
}

/* Replace the C environment by cfg's allow-listed one and zero the block
 * the process inherited (what /proc/self/environ shows). */
static void
replace_environ(char **env, size_t n)
{
    unsigned long start = 0, end = 0;
    char buf[4096];
    clearenv();
    for (size_t i = 0; i < n; i++) {
        putenv(env[i]);     /* strings stay owned by cfg (never freed in the child) */
    }
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    ssize_t got = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (got <= 0) {
        return;
    }
    buf[got] = '\0';
    /* fields after "(comm)": state is field 3; env_start/env_end are 50/51 */
    char *p = strrchr(buf, ')');
    if (p == NULL) {
        return;
    }
    p += 2;
    for (int field = 3; field < 50 && p != NULL; field++) {
        p = strchr(p, ' ');
        if (p != NULL) {
            p++;
        }
    }
    if (p == NULL || sscanf(p, "%lu %lu", &start, &end) != 2 || end <= start ||
            end - start > (64UL << 20)) {
        return;
    }
    memset((void *)start, 0, end - start);
}

static int
close_others(lx_confine *cfg)
{
    for (int i = 0; i < 3; i++) {
        if (cfg->stdio[i] >= 0 && cfg->stdio[i] != i && dup2(cfg->stdio[i], i) < 0) {
            lx_sb_fail(cfg, errno, "fds: dup2 onto %d", i);
            return -1;
        }
    }
    /* keep is sorted ascending; close the gaps */
    unsigned lo = 3;
    for (size_t i = 0; i < cfg->nkeep; i++) {
        unsigned k = (unsigned)cfg->keep[i];
        if (k < lo) {
            continue;
        }
        if (k > lo && syscall(SYS_close_range, lo, k - 1, 0) < 0) {
            lx_sb_fail(cfg, errno, "fds: close_range");
            return -1;
        }
        lo = k + 1;
    }
    if (syscall(SYS_close_range, lo, ~0U, 0) < 0) {
        lx_sb_fail(cfg, errno, "fds: close_range");
        return -1;
    }
    return 0;
}

static void
drop_capabilities(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof(data));
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL) {
            break;      /* past the last capability this kernel knows */
        }
    }
    syscall(SYS_capset, &hdr, data);
}

/* Everything child 2 (or child 1 without a PID namespace) does. */
static int
confine_self(lx_confine *cfg, int is_root, char **env, size_t nenv)
{
    uid_t uid = cfg->uid >= 0 ? (uid_t)cfg->uid : getuid();
    gid_t gid = cfg->gid >= 0 ? (gid_t)cfg->gid : getgid();
    int drop = is_root && cfg->uid >= 0;

    int procfd = -1, ret = -1;
    replace_environ(env, nenv);
    lx_sb_mark(cfg, "environ");
    if (drop && wanted(cfg, LX_L_USERNS) && !(cfg->applied & LX_L_PIDNS)) {
        /* no /proc of its own will be in view: keep the host's for the maps */
        procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    /* a half-built view cannot be rolled back: a failure here is an error */
    if ((cfg->applied & LX_L_MOUNTNS) &&
            lx_sb_build_root(cfg, drop ? uid : (uid_t)-1, drop ? gid : (gid_t)-1) < 0) {
        goto done;
    }
    lx_sb_mark(cfg, "mount view");
    if (!(cfg->applied & LX_L_MOUNTNS) && cfg->hostdir == NULL) {
        lx_sb_fail(cfg, EINVAL, "mountns: not applied and no host run directory");
        goto done;
    }
    if (drop) {
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
                setresuid(uid, uid, uid) < 0) {
            lx_sb_fail(cfg, errno, "dropping to uid %lu gid %lu", (unsigned long)uid,
                       (unsigned long)gid);
            goto done;
        }
        /* /proc/self/{uid,gid}_map must stay writable by ourselves */
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        if (wanted(cfg, LX_L_USERNS) && enter_userns(cfg, uid, gid, procfd) < 0) {
            goto done;
        }
    }
    if (procfd >= 0) {
        close(procfd);
        procfd = -1;
    }
    lx_sb_mark(cfg, "uid drop + userns");
    const char *dir = (cfg->applied & LX_L_MOUNTNS) ? cfg->rundir : cfg->hostdir;
    if (chdir(dir) < 0) {
        lx_sb_fail(cfg, errno, "chdir %s", dir);
        goto done;
    }
    if (close_others(cfg) < 0) {
        goto done;
    }
    lx_sb_mark(cfg, "descriptors");
    drop_capabilities();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        lx_sb_fail(cfg, errno, "no_new_privs");
        goto done;
    }
    if (wanted(cfg, LX_L_LANDLOCK)) {
        if (simulated(cfg, LX_L_LANDLOCK, "landlock: create_ruleset") ||
                lx_sb_landlock_apply(cfg) < 0) {
            if (layer_failed(cfg, LX_L_LANDLOCK) < 0) {
                goto done;
            }
        }
        else {
            cfg->applied |= LX_L_LANDLOCK;
        }
    }
    lx_sb_mark(cfg, "capabilities + landlock");
    if (wanted(cfg, LX_L_SECCOMP)) {
        if (simulated(cfg, LX_L_SECCOMP, "seccomp: loading the filter") ||
                lx_sb_seccomp_load(cfg) < 0) {
            if (layer_failed(cfg, LX_L_SECCOMP) < 0) {
                goto done;
            }
        }
        else {
            cfg->applied |= LX_L_SECCOMP;
        }
    }
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    lx_sb_mark(cfg, "seccomp");
    ret = 0;
done:
    if (procfd >= 0) {
        close(procfd);
    }
    return ret;
}

/* Child 1: returns 0 in the process that goes on to run the code (child 2,
 * or child 1 itself without a PID namespace), -1 with cfg->err set. */
static int
child_main(lx_confine *cfg, int is_root, char **env, size_t nenv)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    lx_sb_mark(cfg, "fork");
    if (setsid() < 0) {
        lx_sb_fail(cfg, errno, "setsid");
        return -1;
    }
    if (cfg->cgroup_fd >= 0) {
        if (write(cfg->cgroup_fd, "0", 1) != 1) {
            lx_sb_fail(cfg, errno, "joining the pids cgroup");
            return -1;
        }
        close(cfg->cgroup_fd);
        cfg->cgroup_fd = -1;
        lx_sb_mark(cfg, "cgroup");
    }
    if (!is_root && wanted(cfg, LX_L_USERNS) && enter_userns(cfg, uid, gid, -1) < 0) {
        return -1;
    }
    if (unshare_layer(cfg, LX_L_MOUNTNS, CLONE_NEWNS, "mountns: unshare") < 0 ||
            unshare_layer(cfg, LX_L_IPCNS, CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP,
                          "ipcns: unshare") < 0) {
        return -1;
    }
    if (wanted(cfg, LX_L_NETNS)) {
        int r = simulated(cfg, LX_L_NETNS, "netns") ? -1 :
            cfg->netns_fd >= 0 ? setns(cfg->netns_fd, CLONE_NEWNET) : unshare(CLONE_NEWNET);
        if (r < 0) {
            if (cfg->err[0] == '\0') {
                lx_sb_fail(cfg, errno, cfg->netns_fd >= 0 ? "netns: setns" : "netns: unshare");
            }
            if (layer_failed(cfg, LX_L_NETNS) < 0) {
                return -1;
            }
        }
        else {
            cfg->applied |= LX_L_NETNS;
        }
    }
    if (cfg->netns_fd >= 0) {
        close(cfg->netns_fd);
        cfg->netns_fd = -1;
    }
    lx_sb_mark(cfg, "namespaces");
    if (cfg->applied & LX_L_PIDNS) {
        /* the parent forked us into a new PID namespace already */
        return confine_self(cfg, is_root, env, nenv);
    }
    if (unshare_layer(cfg, LX_L_PIDNS, CLONE_NEWPID, "pidns: unshare") < 0) {
        return -1;
    }
    if (cfg->applied & LX_L_PIDNS) {
        int death[2];
        if (pipe2(death, O_CLOEXEC) < 0) {
            lx_sb_fail(cfg, errno, "pidns: pipe");
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            lx_sb_fail(cfg, errno, "pidns: fork");
            return -1;
        }
        if (pid > 0) {
            close(death[0]);
            mirror(pid, death[1]);
        }
        close(death[1]);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) {
            lx_sb_fail(cfg, errno, "pidns: PR_SET_PDEATHSIG");
            return -1;
        }
        struct pollfd pfd = {.fd = death[0], .events = POLLIN};
        if (poll(&pfd, 1, 0) != 0) {
            _exit(70);      /* child 1 is gone already */
        }
        close(death[0]);
        lx_sb_mark(cfg, "pid namespace fork");
    }
    return confine_self(cfg, is_root, env, nenv);
}

/* ------------------------------------------------------------------ Python */

static void
free_confine(lx_confine *cfg, char **env, size_t nenv)
{
    for (size_t i = 0; i < cfg->nro; i++) {
        free(cfg->ro[i].path);
    }
    free(cfg->ro);
    for (size_t i = 0; i < cfg->nlinks; i++) {
        free(cfg->links[i].path);
        free(cfg->links[i].target);
    }
    free(cfg->links);
    free(cfg->keep);
    free(cfg->rundir);
    free(cfg->hostdir);
    for (size_t i = 0; i < nenv; i++) {
        free(env[i]);
    }
    free(env);
}

/* A copy of the str `obj` (UTF-8 via the file system encoding), or NULL
 * with an exception. */
static char *
path_copy(PyObject *obj, const char *what, int absolute)
{
    PyObject *b = NULL;
    char *out = NULL;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    b = PyUnicode_EncodeFSDefault(obj);
    if (b == NULL) {
        return NULL;
    }
    const char *s = PyBytes_AS_STRING(b);
    if ((size_t)PyBytes_GET_SIZE(b) != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s contains a NUL byte", what);
    }
    else if (absolute && (s[0] != '/' || strstr(s, "/../") || strstr(s, "/./") ||
                          strcmp(s, "/") == 0)) {
        PyErr_Format(PyExc_ValueError, "%s must be an absolute, normalized path other "
                     "than /: %R", what, obj);
    }
    else if (PyBytes_GET_SIZE(b) >= 4000) {
        PyErr_Format(PyExc_ValueError, "%s is too long", what);
    }
    else if ((out = strdup(s)) == NULL) {
        PyErr_NoMemory();
    }
    Py_DECREF(b);
    return out;
}

/* layer names (an iterable of str) -> bits; -1 with an exception */
static int
layer_bits(PyObject *names, const char *what, unsigned *out)
{
    PyObject *it = NULL, *item = NULL;
    *out = 0;
    if (names == NULL || names == Py_None) {
        return 0;
    }
    if (PyUnicode_Check(names)) {
        PyErr_Format(PyExc_TypeError, "%s must be a collection of layer names, not str", what);
        return -1;
    }
    it = PyObject_GetIter(names);
    if (it == NULL) {
        return -1;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        int found = -1;
        if (PyUnicode_Check(item)) {
            for (int i = 0; i < LX_L_NLAYERS; i++) {
                if (PyUnicode_CompareWithASCIIString(item, layer_names[i]) == 0) {
                    found = i;
                }
            }
        }
        if (found < 0) {
            PyErr_Format(PyExc_ValueError, "%s: unknown layer %R (known: userns, pidns, "
                         "mountns, netns, ipcns, landlock, seccomp)", what, item);
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        *out |= 1u << found;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

static int
int_list(PyObject *seq, const char *what, int **out, size_t *n)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    *out = calloc(len ? (size_t)len : 1, sizeof(int));
    if (*out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v > 1 << 20) {
            PyErr_Format(PyExc_ValueError, "%s: %ld is not a descriptor", what, v);
            Py_DECREF(fast);
            return -1;
        }
        (*out)[i] = (int)v;
        *n = (size_t)i + 1;
    }
    Py_DECREF(fast);
    /* ascending, for close_others */
    for (size_t i = 1; i < *n; i++) {
        for (size_t j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
            int t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    }
    return 0;
}

static int
parse_paths(PyObject *seq, lx_confine *cfg)
{
    PyObject *fast = PySequence_Fast(seq, "readonly must be a sequence of paths");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    cfg->ro = calloc(len ? (size_t)len : 1, sizeof(lx_ro_path));
    if (cfg->ro == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        struct stat st;
        char *p = path_copy(PySequence_Fast_GET_ITEM(fast, i), "readonly path", 1);
        if (p == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        cfg->ro[cfg->nro].path = p;
        cfg->nro++;
        if (stat(p, &st) < 0) {
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, p);
            Py_DECREF(fast);
            return -1;
        }
        cfg->ro[cfg->nro - 1].is_dir = S_ISDIR(st.st_mode);
    }
    Py_DECREF(fast);
    return 0;
}

static int
parse_links(PyObject *seq, lx_confine *cfg)
{
    PyObject *fast = PySequence_Fast(seq, "links must be a sequence of (path, target)");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    cfg->links = calloc(len ? (size_t)len : 1, sizeof(lx_link));
    if (cfg->links == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "links must be (path, target) tuples");
            Py_DECREF(fast);
            return -1;
        }
        lx_link *l = &cfg->links[cfg->nlinks];
        l->path = path_copy(PyTuple_GET_ITEM(pair, 0), "link path", 1);
        if (l->path == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        cfg->nlinks++;
        l->target = path_copy(PyTuple_GET_ITEM(pair, 1), "link target", 0);
        if (l->target == NULL) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* {name: value} of str -> malloc'd "name=value" strings */
static int
parse_env(PyObject *dict, char ***out, size_t *n)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "environ must be a dict of str to str");
        return -1;
    }
    *out = calloc((size_t)PyDict_GET_SIZE(dict) + 1, sizeof(char *));
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    while (PyDict_Next(dict, &pos, &k, &v)) {
        char *ks = path_copy(k, "environ name", 0);
        if (ks == NULL) {
            return -1;
        }
        char *vs = path_copy(v, "environ value", 0);
        if (vs == NULL) {
            free(ks);
            return -1;
        }
        size_t size = strlen(ks) + strlen(vs) + 2;
        char *kv = malloc(size);
        if (kv == NULL || ks[0] == '\0' || strchr(ks, '=') != NULL) {
            free(ks);
            free(vs);
            free(kv);
            if (kv == NULL) {
                PyErr_NoMemory();
            }
            else {
                PyErr_Format(PyExc_ValueError, "bad environment variable name %R", k);
            }
            return -1;
        }
        snprintf(kv, size, "%s=%s", ks, vs);
        free(ks);
        free(vs);
        (*out)[(*n)++] = kv;
    }
    return 0;
}

/* The seccomp program of this process (built on first use), borrowed. */
static PyObject *
seccomp_program(lx_state *st)
{
    if (st->sandbox_bpf == NULL) {
        unsigned char *buf = NULL;
        size_t len = 0;
        char err[256];
        if (lx_sb_seccomp_build(&buf, &len, err, sizeof(err)) < 0) {
            PyErr_SetString(PyExc_OSError, err);
            return NULL;
        }
        st->sandbox_bpf = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)len);
        free(buf);
        if (st->sandbox_bpf == NULL) {
            return NULL;
        }
    }
    return st->sandbox_bpf;
}

static PyObject *
applied_info(lx_confine *cfg)
{
    PyObject *skipped = NULL, *applied = NULL, *out = NULL;
    skipped = PyDict_New();
    applied = PyList_New(0);
    if (skipped == NULL || applied == NULL) {
        goto done;
    }
    for (int i = 0; i < LX_L_NLAYERS; i++) {
        PyObject *name = PyUnicode_FromString(layer_names[i]);
        if (name == NULL) {
            goto done;
        }
        int r = 0;
        if (cfg->applied & (1u << i)) {
            r = PyList_Append(applied, name);
        }
        else if (cfg->why[i][0]) {
            PyObject *why = PyUnicode_DecodeUTF8(cfg->why[i], strlen(cfg->why[i]), "replace");
            r = why == NULL ? -1 : PyDict_SetItem(skipped, name, why);
            Py_XDECREF(why);
        }
        Py_DECREF(name);
        if (r < 0) {
            goto done;
        }
    }
    if (cfg->trace) {
        PyObject *marks = PyList_New(0);
        if (marks == NULL) {
            goto done;
        }
        for (int i = 0; i < cfg->nmarks; i++) {
            PyObject *pair = Py_BuildValue("(sd)", cfg->mark_name[i], cfg->mark_time[i]);
            if (pair == NULL || PyList_Append(marks, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(marks);
                goto done;
            }
            Py_DECREF(pair);
        }
        out = Py_BuildValue("{sOsOsisN}", "applied", applied, "skipped", skipped,
                            "landlock_abi", (cfg->applied & LX_L_LANDLOCK) ? cfg->landlock_abi : 0,
                            "trace", marks);
        goto done;
    }
    out = Py_BuildValue("{sOsOsi}", "applied", applied, "skipped", skipped,
                        "landlock_abi", (cfg->applied & LX_L_LANDLOCK) ? cfg->landlock_abi : 0);
done:
    Py_XDECREF(skipped);
    Py_XDECREF(applied);
    return out;
}

PyDoc_STRVAR(sandbox_fork_doc,
"sandbox_fork(*, required, optional=(), readonly=(), links=(), stdio=(-1, -1, -1),\n"
"             keep_fds=(), environ={}, uid=-1, gid=-1, tmp_size=64 MiB,\n"
"             tmp_inodes=16384, netns_fd=-1, cgroup_fd=-1,\n"
"             rundir='/tmp/lexecutor_c-run', hostdir=None, simulate_missing=(),\n"
"             trace=False)\n"
"--\n\n"
"Fork a confined child (see csrc/sandbox/confine.c for the steps).  Returns\n"
"(pid, None) in the parent and (0, info) in the child, info being\n"
"{'applied': [layers], 'skipped': {layer: why}, 'landlock_abi': n} (and with\n"
"trace=True 'trace': [(step, CLOCK_MONOTONIC seconds)]).  In the\n"
"child a required layer that cannot be applied raises OSError; the caller\n"
"must then leave the child with os._exit.  Layers: userns, pidns, mountns,\n"
"netns, ipcns, landlock, seccomp.");

static PyObject *
sandbox_fork(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {
        "required", "optional", "readonly", "links", "stdio", "keep_fds", "environ", "uid",
        "gid", "tmp_size", "tmp_inodes", "netns_fd", "cgroup_fd", "rundir", "hostdir",
        "simulate_missing", "trace", NULL,
    };
    lx_state *st = lx_get_state(module);
    PyObject *required = NULL, *optional = NULL, *readonly = NULL, *links = NULL;
    PyObject *keep = NULL, *envd = NULL, *rundir = NULL, *hostdir = NULL, *simulate = NULL;
    PyObject *result = NULL;
    lx_confine cfg;
    char **env = NULL;
    size_t nenv = 0;
    memset(&cfg, 0, sizeof(cfg));
    cfg.stdio[0] = cfg.stdio[1] = cfg.stdio[2] = -1;
    cfg.uid = cfg.gid = -1;
    cfg.tmp_size = 64LL << 20;
    cfg.tmp_inodes = 16384;
    cfg.netns_fd = cfg.cgroup_fd = -1;

    if (PyTuple_GET_SIZE(args) != 0) {
        PyErr_SetString(PyExc_TypeError, "sandbox_fork() takes keyword arguments only");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOO(iii)OOllLliiOOOp:sandbox_fork",
                                     kwlist, &required, &optional, &readonly, &links,
                                     &cfg.stdio[0], &cfg.stdio[1], &cfg.stdio[2], &keep,
                                     &envd, &cfg.uid, &cfg.gid, &cfg.tmp_size,
                                     &cfg.tmp_inodes, &cfg.netns_fd, &cfg.cgroup_fd, &rundir,
                                     &hostdir, &simulate, &cfg.trace)) {
        return NULL;
    }
    if (required == NULL) {
        PyErr_SetString(PyExc_TypeError, "sandbox_fork() missing required argument 'required'");
        return NULL;
    }
    if (layer_bits(required, "required", &cfg.required) < 0 ||
            layer_bits(optional, "optional", &cfg.optional) < 0 ||
            layer_bits(simulate, "simulate_missing", &cfg.simulate_missing) < 0) {
        goto done;
    }
    cfg.optional &= ~cfg.required;
    if (cfg.tmp_size < 4096 || cfg.tmp_inodes < 16) {
        PyErr_SetString(PyExc_ValueError, "tmp_size must be >= 4096 and tmp_inodes >= 16");
        goto done;
    }
    if ((cfg.uid < -1) || (cfg.gid < -1) || cfg.uid > 0x7fffffffL || cfg.gid > 0x7fffffffL) {
        PyErr_SetString(PyExc_ValueError, "uid and gid must be ids or -1");
        goto done;
    }
    for (int i = 0; i < 3; i++) {
        if (cfg.stdio[i] < -1) {
            PyErr_SetString(PyExc_ValueError, "stdio: descriptors or -1");
            goto done;
        }
    }
    if ((readonly && parse_paths(readonly, &cfg) < 0) ||
            (links && parse_links(links, &cfg) < 0) ||
            (keep && int_list(keep, "keep_fds must be a sequence of int", &cfg.keep,
                              &cfg.nkeep) < 0) ||
            (envd && parse_env(envd, &env, &nenv) < 0)) {
        goto done;
    }
    if (env == NULL && (env = calloc(1, sizeof(char *))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    cfg.rundir = rundir ? path_copy(rundir, "rundir", 1) : strdup("/tmp/lexecutor_c-run");
    if (cfg.rundir == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    if (strncmp(cfg.rundir, "/tmp/", 5) != 0 || strchr(cfg.rundir + 5, '/') != NULL) {
        PyErr_SetString(PyExc_ValueError, "rundir must be a directory directly in /tmp");
        goto done;
    }
    if (hostdir && hostdir != Py_None && (cfg.hostdir = path_copy(hostdir, "hostdir", 1)) == NULL) {
        goto done;
    }
    if ((cfg.required | cfg.optional) & LX_L_SECCOMP) {
        PyObject *prog = seccomp_program(st);
        if (prog == NULL) {
            goto done;
        }
        cfg.bpf = (const unsigned char *)PyBytes_AS_STRING(prog);
        cfg.bpf_len = (size_t)PyBytes_GET_SIZE(prog);
    }
    if ((cfg.required | cfg.optional) & LX_L_LANDLOCK) {
        cfg.landlock_abi = lx_sb_landlock_abi();
    }
    int is_root = geteuid() == 0;
    if (is_root && cfg.uid < 0 && ((cfg.required | cfg.optional) & LX_L_USERNS)) {
        PyErr_SetString(PyExc_ValueError, "a root caller must name the unprivileged uid and "
                        "gid the child drops to (uid=, gid=)");
        goto done;
    }

    /* A root caller forks the child straight into a new PID namespace: this
     * thread's namespace for children is switched around the fork and back
     * (setns to its own), which saves a second fork and a process that only
     * waits.  Others let child 1 do it. */
    int parent_pidns = 0;
    if (is_root && wanted(&cfg, LX_L_PIDNS) && !(cfg.simulate_missing & LX_L_PIDNS)) {
        if (st->sandbox_pidns_fd < 0) {
            st->sandbox_pidns_fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        }
        if (st->sandbox_pidns_fd >= 0 && unshare(CLONE_NEWPID) == 0) {
            parent_pidns = 1;
        }
    }
    lx_sb_mark(&cfg, "start");
    PyOS_BeforeFork();
    pid_t pid = fork();
    if (pid != 0) {
        int saved = errno;
        if (parent_pidns && setns(st->sandbox_pidns_fd, CLONE_NEWPID) < 0) {
            /* cannot happen for root; if it does, forks from this thread
             * would land in a dead namespace: say so loudly */
            Py_FatalError("lexecutor_c sandbox: could not return to the caller's PID "
                          "namespace after forking a confined child");
        }
        PyOS_AfterFork_Parent();
        if (pid < 0) {
            errno = saved;
            PyErr_SetFromErrno(PyExc_OSError);
            goto done;
        }
        result = Py_BuildValue("(iO)", (int)pid, Py_None);
        goto done;
    }
    PyOS_AfterFork_Child();
    if (parent_pidns) {
        cfg.applied |= LX_L_PIDNS;
    }
    if (child_main(&cfg, is_root, env, nenv) < 0) {
        PyErr_Format(PyExc_OSError, "sandbox: %s: %s", cfg.err,
                     strerror(cfg.err_errno ? cfg.err_errno : EPERM));
        /* env strings may be in the C environment now: never free them here */
        nenv = 0;
        goto done;
    }
    PyObject *info = applied_info(&cfg);
    if (info != NULL) {
        result = Py_BuildValue("(iN)", 0, info);
    }
    nenv = 0;       /* putenv'd: part of the environment from now on */
    env = NULL;
done:
    free_confine(&cfg, env, nenv);
    return result;
}

PyDoc_STRVAR(sandbox_probe_doc,
"sandbox_probe() -> {'landlock_abi': int, 'seccomp': str or None}\n"
"--\n\n"
"What this kernel offers without forking: the Landlock ABI version (0: none)\n"
"and why the seccomp filter cannot be built (None when it can).");

static PyObject *
sandbox_probe(PyObject *module, PyObject *unused)
{
    (void)unused;
    lx_state *st = lx_get_state(module);
    PyObject *why = Py_None;
    PyObject *msg = NULL;
    if (seccomp_program(st) == NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        msg = value ? PyObject_Str(value) : NULL;
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        if (msg == NULL) {
            PyErr_Clear();
            msg = PyUnicode_FromString("seccomp filter could not be built");
            if (msg == NULL) {
                return NULL;
            }
        }
        why = msg;
    }
    else if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
        msg = PyUnicode_FromFormat("prctl(PR_GET_SECCOMP): %s", strerror(errno));
        if (msg == NULL) {
            return NULL;
        }
        why = msg;
    }
    PyObject *out = Py_BuildValue("{sisO}", "landlock_abi", lx_sb_landlock_abi(),
                                  "seccomp", why);
    Py_XDECREF(msg);
    return out;
}

static PyMethodDef sandbox_methods[] = {
    {"sandbox_fork", (PyCFunction)(void (*)(void))sandbox_fork, METH_VARARGS | METH_KEYWORDS,
     sandbox_fork_doc},
    {"sandbox_probe", sandbox_probe, METH_NOARGS, sandbox_probe_doc},
    {NULL, NULL, 0, NULL},
};

int
lx_sandbox_exec(PyObject *m, lx_state *st)
{
    st->sandbox_bpf = NULL;
    st->sandbox_pidns_fd = -1;
    return PyModule_AddFunctions(m, sandbox_methods);
}

int
lx_sandbox_traverse(lx_state *st, visitproc visit, void *arg)
{
    Py_VISIT(st->sandbox_bpf);
    return 0;
}

void
lx_sandbox_clear(lx_state *st)
{
    Py_CLEAR(st->sandbox_bpf);
    if (st->sandbox_pidns_fd >= 0) {
        close(st->sandbox_pidns_fd);
        st->sandbox_pidns_fd = -1;
    }
}
