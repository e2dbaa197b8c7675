/* sandbox.h - confinement of the sandbox child (docs/RUNNING.md, "Layers").
 *
 * confine.c holds the entry points (_core.sandbox_fork and friends) and the
 * order of the steps; each layer lives in its own file and works on plain C
 * data (an lx_confine filled in the parent before the fork), so nothing
 * between fork and the return to Python allocates Python objects.
 */
#ifndef LX_SANDBOX_H
#define LX_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

/* Layers, as bits (names in confine.c: lx_layer_names). */
enum {
    LX_L_USERNS = 1u << 0,     /* user namespace, unprivileged id */
    LX_L_PIDNS = 1u << 1,      /* PID namespace; the child is its init */
    LX_L_MOUNTNS = 1u << 2,    /* mount namespace: read-only minimal root */
    LX_L_NETNS = 1u << 3,      /* network namespace */
    LX_L_IPCNS = 1u << 4,      /* IPC, UTS and cgroup namespaces */
    LX_L_LANDLOCK = 1u << 5,   /* Landlock ruleset */
    LX_L_SECCOMP = 1u << 6,    /* seccomp filter */
    LX_L_NLAYERS = 7
};

#define LX_WHY_MAX 400

/* A path the child may read: `path` is an absolute, canonical path of the
 * host; inside the sandbox it appears at the same place. */
typedef struct {
    char *path;
    int is_dir;
} lx_ro_path;

/* A symbolic link recreated inside the sandbox's root (e.g. /bin -> usr/bin). */
typedef struct {
    char *path;
    char *target;
} lx_link;

typedef struct {
    unsigned required;          /* layers that must apply (failure: error) */
    unsigned optional;          /* layers tried, skipped when not possible */
    unsigned simulate_missing;  /* tests: these layers fail as with ENOSYS */
    lx_ro_path *ro;
    size_t nro;
    lx_link *links;
    size_t nlinks;
    int stdio[3];
    int *keep;                  /* descriptors kept open besides 0, 1, 2 */
    size_t nkeep;
    long uid, gid;              /* caller root: drop to these; -1: keep */
    long long tmp_size;         /* bytes of the private /tmp (and /dev/shm) */
    long tmp_inodes;
    int netns_fd;               /* >= 0: join this network namespace */
    int cgroup_fd;              /* >= 0: cgroup.procs to join */
    char *rundir;               /* cwd, HOME, TMPDIR: path inside the sandbox */
    char *hostdir;              /* without a mount namespace: the host's run dir */
    const unsigned char *bpf;   /* seccomp program (struct sock_filter[]) */
    size_t bpf_len;             /* bytes */
    int landlock_abi;           /* probed in the parent; 0: none */
    /* tracing (trace=True): monotonic time of each step, for the benchmark */
    int trace;
    int nmarks;
    const char *mark_name[32];
    double mark_time[32];
    /* results */
    unsigned applied;
    char why[LX_L_NLAYERS][LX_WHY_MAX];   /* why an optional layer was skipped */
    char err[256];              /* the failing step, for the exception */
    int err_errno;
} lx_confine;

/* mounts.c: build the read-only root and pivot into it (mount namespace
 * already entered).  0 / -1 with cfg->err set. */
int lx_sb_build_root(lx_confine *cfg, uid_t owner, gid_t group);

/* landlock.c */
int lx_sb_landlock_abi(void);                 /* 0 when unavailable; errno set */
int lx_sb_landlock_apply(lx_confine *cfg);    /* 0 / -1 with cfg->err set */

/* seccomp.c: the filter as BPF bytes (malloc'd), built with libseccomp. */
int lx_sb_seccomp_build(unsigned char **out, size_t *len, char *err, size_t errlen);
int lx_sb_seccomp_load(lx_confine *cfg);      /* 0 / -1 with cfg->err set */

/* confine.c helpers shared with the layer files */
void lx_sb_fail(lx_confine *cfg, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lx_sb_mark(lx_confine *cfg, const char *step);

#endif
