/* seccomp.c - the seccomp layer: system calls a snippet never needs fail
 * with EPERM (new namespaces and mounts, debugging other processes, kernel
 * keyrings, modules, BPF, io_uring, clocks, ...); socket families other than
 * unix, inet and inet6 fail with EAFNOSUPPORT; TIOCSTI/TIOCLINUX (pushing
 * input into a terminal) fail; clone3 answers ENOSYS so that the C library
 * falls back to clone, whose flags the filter can see.
 *
 * The filter is built with libseccomp (Debian libseccomp-dev), not written
 * as BPF by hand: libseccomp resolves each name to the number of the
 * architecture, emits the architecture check (a call made through the
 * 32-bit or x32 entry points, a classic way around a hand-written filter,
 * kills the process), and generates the argument comparisons.  It is built
 * once per process (lx_sb_seccomp_build, exported as BPF bytes and kept in
 * the module state); each child only loads the bytes with prctl.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const denied[] = {
    /* namespaces, mounts, root changes */
    "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    /* other processes' memory and descriptors */
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
    "kcmp",
    /* kernel facilities a snippet has no business with */
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "lookup_dcookie",
    "fanotify_init", "open_by_handle_at", "name_to_handle_at", "quotactl", "quotactl_fd",
    /* the machine */
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "swapon", "swapoff", "acct", "syslog", "vhangup", "uselib",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "iopl", "ioperm", "modify_ldt", "nfsservctl",
};

static const unsigned long ns_flags[] = {
    CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS,
    CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/* socket families kept: AF_UNIX (1), AF_INET (2), AF_INET6 (10) */
static const int denied_families[] = {AF_UNSPEC, 3, 4, 5, 6, 7, 8, 9};

static int
add(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
    const struct scmp_arg_cmp *cmp, char *err, size_t errlen)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) {
        return 0;   /* unknown to this libseccomp or to the architecture */
    }
    int r = seccomp_rule_add_array(ctx, action, nr, n, cmp);
    if (r < 0) {
        snprintf(err, errlen, "seccomp: rule for %s: %s", name, strerror(-r));
        return -1;
    }
    return 0;
}

int
lx_sb_seccomp_build(unsigned char **out, size_t *len, char *err, size_t errlen)
{
    int ret = -1;
    int fd = -1;
    unsigned char *buf = NULL;
    struct scmp_arg_cmp cmp[1];
    *out = NULL;
    *len = 0;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) {
        snprintf(err, errlen, "seccomp: seccomp_init failed");
        return -1;
    }
    for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
        if (add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0, NULL, err, errlen) < 0) {
            goto done;
        }
    }
    for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
        cmp[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]);
        if (add(ctx, SCMP_ACT_ERRNO(EPERM), "clone", 1, cmp, err, errlen) < 0) {
            goto done;
        }
    }
    if (add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL, err, errlen) < 0) {
        goto done;
    }
    for (size_t i = 0; i < sizeof(denied_families) / sizeof(denied_families[0]); i++) {
        cmp[0] = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)denied_families[i]);
        if (add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, cmp, err, errlen) < 0) {
            goto done;
        }
    }
    cmp[0] = SCMP_A0(SCMP_CMP_GE, 11);
    if (add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, cmp, err, errlen) < 0) {
        goto done;
    }
    static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX};
    for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
        cmp[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, ioctls[i]);
        if (add(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, cmp, err, errlen) < 0) {
            goto done;
        }
    }
    /* the program, as bytes: through a memfd, the only export 2.5 offers */
    fd = memfd_create("lexecutor_c-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "seccomp: memfd_create: %s", strerror(errno));
        goto done;
    }
    int r = seccomp_export_bpf(ctx, fd);
    if (r < 0) {
        snprintf(err, errlen, "seccomp: export: %s", strerror(-r));
        goto done;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0 || size % sizeof(struct sock_filter) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "seccomp: exported program has %lld bytes", (long long)size);
        goto done;
    }
    buf = malloc((size_t)size);
    if (buf == NULL) {
        snprintf(err, errlen, "seccomp: out of memory");
        goto done;
    }
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t n = read(fd, buf + got, (size_t)size - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            snprintf(err, errlen, "seccomp: reading the program back: %s",
                     n < 0 ? strerror(errno) : "short read");
            goto done;
        }
        got += (size_t)n;
    }
    *out = buf;
    *len = (size_t)size;
    buf = NULL;
    ret = 0;
done:
    free(buf);
    if (fd >= 0) {
        close(fd);
    }
    seccomp_release(ctx);
    return ret;
}

int
lx_sb_seccomp_load(lx_confine *cfg)
{
    if (cfg->bpf == NULL || cfg->bpf_len == 0) {
        lx_sb_fail(cfg, EINVAL, "seccomp: no filter program");
        return -1;
    }
    struct sock_fprog prog = {
        .len = (unsigned short)(cfg->bpf_len / sizeof(struct sock_filter)),
        .filter = (struct sock_filter *)cfg->bpf,
    };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
        lx_sb_fail(cfg, errno, "seccomp: loading the filter");
        return -1;
    }
    return 0;
}
