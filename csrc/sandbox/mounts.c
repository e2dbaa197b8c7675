/* mounts.c - the sandbox's file system view (layer "mountns").
 *
 * Runs in the child, inside a fresh mount namespace (and PID namespace when
 * that layer is on), before any identity change.  It builds a new root on a
 * small tmpfs holding only:
 *   - read-only bind mounts of the paths the parent listed (the system
 *     directories, the Python installation, site-packages, the package),
 *     each at its own path, plus the top-level symlinks (/bin -> usr/bin);
 *   - a /proc of the child's PID namespace;
 *   - a /dev with null, zero, full, random and urandom bound from the host;
 *   - a private /tmp (tmpfs of cfg->tmp_size bytes) holding the run
 *     directory, and a private /dev/shm;
 * then pivots into it and detaches the old root.  Everything but /tmp and
 * /dev/shm is read-only, nosuid and (except the device nodes) nodev.
 *
 * The sources are opened (O_PATH) before the staging tmpfs covers /tmp, and
 * bound through /proc/self/fd, so a source below /tmp still works; such a
 * source is bound on top of the private /tmp, read-only.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STAGE "/tmp"            /* where the new root is assembled */

static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom"};
#define N_DEV (sizeof(dev_nodes) / sizeof(dev_nodes[0]))

/* STAGE + path into buf; -1 (ENAMETOOLONG) when it does not fit. */
static int
staged(char *buf, size_t size, const char *path)
{
    int n = snprintf(buf, size, "%s%s", STAGE, path);
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* mkdir -p of every component of `full` below STAGE (mode 0755); the last
 * component is a directory when leaf_dir, else an empty file. */
static int
make_path(const char *full, int leaf_dir)
{
    char buf[4096];
    size_t n = strlen(full);
    if (n >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, full, n + 1);
    for (char *p = buf + strlen(STAGE) + 1; *p; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
            return -1;
        }
        *p = '/';
    }
    if (leaf_dir) {
        if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
            return -1;
        }
        return 0;
    }
    int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) {
        return errno == EEXIST ? 0 : -1;
    }
    close(fd);
    return 0;
}

static int
under_tmp(const char *path)
{
    return strncmp(path, "/tmp/", 5) == 0;
}

static int
bind_fd(int fd, const char *target)
{
    char src[64];
    snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
    return mount(src, target, NULL, MS_BIND | MS_REC, NULL);
}

static int
set_readonly(const char *path, int recursive, unsigned long long extra)
{
    struct mount_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | extra;
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path,
                        recursive ? AT_RECURSIVE : 0, &attr, sizeof(attr));
}

int
lx_sb_build_root(lx_confine *cfg, uid_t owner, gid_t group)
{
    int ret = -1;
    int *fds = NULL;
    int devfds[N_DEV];
    char buf[4096], opts[128];
    size_t opened = 0, devopened = 0;

    fds = calloc(cfg->nro ? cfg->nro : 1, sizeof(int));
    if (fds == NULL) {
        lx_sb_fail(cfg, ENOMEM, "mountns: allocating");
        return -1;
    }
    /* nothing we mount may propagate back to the host */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        lx_sb_fail(cfg, errno, "mountns: making / private");
        goto done;
    }
    for (; opened < cfg->nro; opened++) {
        fds[opened] = open(cfg->ro[opened].path, O_PATH | O_CLOEXEC);
        if (fds[opened] < 0) {
            lx_sb_fail(cfg, errno, "mountns: opening %s", cfg->ro[opened].path);
            goto done;
        }
    }
    for (; devopened < N_DEV; devopened++) {
        snprintf(buf, sizeof(buf), "/dev/%s", dev_nodes[devopened]);
        devfds[devopened] = open(buf, O_PATH | O_CLOEXEC);
        if (devfds[devopened] < 0) {
            lx_sb_fail(cfg, errno, "mountns: opening %s", buf);
            goto done;
        }
    }
    if (mount("lexecutor_c-root", STAGE, "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=0755,size=1m,nr_inodes=8192") < 0) {
        lx_sb_fail(cfg, errno, "mountns: tmpfs for the new root");
        goto done;
    }
    for (size_t i = 0; i < cfg->nro; i++) {
        if (under_tmp(cfg->ro[i].path)) {
            continue;       /* bound after the private /tmp is mounted */
        }
        if (staged(buf, sizeof(buf), cfg->ro[i].path) < 0 ||
                make_path(buf, cfg->ro[i].is_dir) < 0) {
            lx_sb_fail(cfg, errno, "mountns: creating %s", buf);
            goto done;
        }
        if (bind_fd(fds[i], buf) < 0) {
            lx_sb_fail(cfg, errno, "mountns: binding %s", cfg->ro[i].path);
            goto done;
        }
    }
    for (size_t i = 0; i < cfg->nlinks; i++) {
        if (staged(buf, sizeof(buf), cfg->links[i].path) < 0) {
            lx_sb_fail(cfg, errno, "mountns: %s", cfg->links[i].path);
            goto done;
        }
        char *slash = strrchr(buf, '/');
        *slash = '\0';
        if (slash > buf + strlen(STAGE) && make_path(buf, 1) < 0) {
            lx_sb_fail(cfg, errno, "mountns: creating %s", buf);
            goto done;
        }
        *slash = '/';
        if (symlink(cfg->links[i].target, buf) < 0 && errno != EEXIST) {
            lx_sb_fail(cfg, errno, "mountns: symlink %s", cfg->links[i].path);
            goto done;
        }
    }
    static const char *const dirs[] = {STAGE "/proc", STAGE "/dev", STAGE "/tmp"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (mkdir(dirs[i], 0755) < 0 && errno != EEXIST) {
            lx_sb_fail(cfg, errno, "mountns: creating %s", dirs[i]);
            goto done;
        }
    }
    /* everything so far read-only, nosuid, nodev, the submounts included */
    lx_sb_mark(cfg, "mount: binds");
    if (set_readonly(STAGE, 1, MOUNT_ATTR_NODEV) < 0) {
        lx_sb_fail(cfg, errno, "mountns: making the root read-only (mount_setattr)");
        goto done;
    }
    if (cfg->applied & LX_L_PIDNS) {
        if (mount("proc", STAGE "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
            lx_sb_fail(cfg, errno, "mountns: mounting /proc");
            goto done;
        }
    }
    /* /dev: a tmpfs with the harmless device nodes bound from the host */
    if (mount("lexecutor_c-dev", STAGE "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
              "mode=0755,size=64k,nr_inodes=64") < 0) {
        lx_sb_fail(cfg, errno, "mountns: tmpfs for /dev");
        goto done;
    }
    for (size_t i = 0; i < N_DEV; i++) {
        snprintf(buf, sizeof(buf), STAGE "/dev/%s", dev_nodes[i]);
        if (make_path(buf, 0) < 0 || bind_fd(devfds[i], buf) < 0) {
            lx_sb_fail(cfg, errno, "mountns: binding /dev/%s", dev_nodes[i]);
            goto done;
        }
    }
    static const char *const dev_links[][2] = {
        {STAGE "/dev/fd", "/proc/self/fd"}, {STAGE "/dev/stdin", "/proc/self/fd/0"},
        {STAGE "/dev/stdout", "/proc/self/fd/1"}, {STAGE "/dev/stderr", "/proc/self/fd/2"},
    };
    for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++) {
        if (symlink(dev_links[i][1], dev_links[i][0]) < 0) {
            lx_sb_fail(cfg, errno, "mountns: symlink %s", dev_links[i][0]);
            goto done;
        }
    }
    if (mkdir(STAGE "/dev/shm", 0755) < 0) {
        lx_sb_fail(cfg, errno, "mountns: creating /dev/shm");
        goto done;
    }
    if (set_readonly(STAGE "/dev", 0, 0) < 0) {
        lx_sb_fail(cfg, errno, "mountns: making /dev read-only");
        goto done;
    }
    /* the writable part: /tmp (with the run directory) and /dev/shm */
    snprintf(opts, sizeof(opts), "mode=1777,size=%lld,nr_inodes=%ld", cfg->tmp_size,
             cfg->tmp_inodes);
    if (mount("lexecutor_c-tmp", STAGE "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
        lx_sb_fail(cfg, errno, "mountns: tmpfs for /tmp (%s)", opts);
        goto done;
    }
    if (mount("lexecutor_c-shm", STAGE "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              opts) < 0) {
        lx_sb_fail(cfg, errno, "mountns: tmpfs for /dev/shm");
        goto done;
    }
    if (staged(buf, sizeof(buf), cfg->rundir) < 0 || mkdir(buf, 0700) < 0) {
        lx_sb_fail(cfg, errno, "mountns: creating the run directory %s", cfg->rundir);
        goto done;
    }
    if ((owner != (uid_t)-1 || group != (gid_t)-1) && chown(buf, owner, group) < 0) {
        lx_sb_fail(cfg, errno, "mountns: chown of the run directory");
        goto done;
    }
    /* readable paths below /tmp: on top of the private /tmp, read-only */
    for (size_t i = 0; i < cfg->nro; i++) {
        if (!under_tmp(cfg->ro[i].path)) {
            continue;
        }
        if (staged(buf, sizeof(buf), cfg->ro[i].path) < 0 ||
                make_path(buf, cfg->ro[i].is_dir) < 0 || bind_fd(fds[i], buf) < 0 ||
                set_readonly(buf, 1, MOUNT_ATTR_NODEV) < 0) {
            lx_sb_fail(cfg, errno, "mountns: binding %s", cfg->ro[i].path);
            goto done;
        }
    }
    /* into the new root; the old one goes away entirely */
    if (chdir(STAGE) < 0 || syscall(SYS_pivot_root, ".", ".") < 0) {
        lx_sb_fail(cfg, errno, "mountns: pivot_root");
        goto done;
    }
    lx_sb_mark(cfg, "mount: pivot_root");
    if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
        lx_sb_fail(cfg, errno, "mountns: detaching the old root");
        goto done;
    }
    ret = 0;
done:
    for (size_t i = 0; i < opened; i++) {
        close(fds[i]);
    }
    for (size_t i = 0; i < devopened; i++) {
        close(devfds[i]);
    }
    free(fds);
    return ret;
}
