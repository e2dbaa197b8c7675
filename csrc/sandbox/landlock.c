/* landlock.c - the Landlock layer: a second, independent file-system (and,
 * from ABI 4, TCP; from ABI 6, signal and abstract-socket) restriction.
 *
 * Every access right the kernel's ABI knows is handled; allowed are
 *   - reading (files, directories, execution) beneath the read-only paths;
 *   - reading /proc and listing /dev;
 *   - reading and writing the harmless device nodes;
 *   - everything beneath the writable places: /tmp and /dev/shm inside a
 *     mount namespace, else the host's run directory.
 * TCP bind/connect are handled without a rule (denied), and the scopes
 * keep signals and abstract unix sockets inside the sandbox's domain.
 *
 * The constants of ABI 3..7 are spelled out here because the build host's
 * <linux/landlock.h> (Debian 12: kernel 6.1 headers) predates them.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_TRUNCATE (1ULL << 14)     /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)    /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)     /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)  /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* the rights that apply to files (not directories) */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | \
                        LL_FS_IOCTL_DEV)

struct lx_ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct lx_ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int
lx_sb_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static uint64_t
fs_rights(int abi)
{
    uint64_t all = (1ULL << 13) - 1;            /* ABI 1: bits 0..12 */
    if (abi >= 2) {
        all |= 1ULL << 13;                      /* REFER */
    }
    if (abi >= 3) {
        all |= LL_FS_TRUNCATE;
    }
    if (abi >= 5) {
        all |= LL_FS_IOCTL_DEV;
    }
    return all;
}

/* Allow `access` beneath `path` (masked to what a file may carry when it
 * is not a directory, and to what the ruleset handles).  A path that does
 * not exist is skipped (0). */
static int
add_path(lx_confine *cfg, int ruleset, const char *path, uint64_t access, uint64_t handled)
{
    struct stat st;
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == EACCES) {
            return 0;       /* not there, or out of reach anyway */
        }
        lx_sb_fail(cfg, errno, "landlock: opening %s", path);
        return -1;
    }
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
        access &= LL_FILE_RIGHTS;
    }
    struct lx_ll_path_beneath rule = {.allowed_access = access & handled, .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    if (r < 0) {
        lx_sb_fail(cfg, saved, "landlock: rule for %s", path);
        return -1;
    }
    return 0;
}

int
lx_sb_landlock_apply(lx_confine *cfg)
{
    int abi = cfg->landlock_abi;
    int ret = -1;
    char buf[64];
    if (abi <= 0) {
        lx_sb_fail(cfg, ENOSYS, "landlock: not supported by this kernel");
        return -1;
    }
    const uint64_t read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
    const uint64_t all = fs_rights(abi);
    struct lx_ll_ruleset_attr attr = {.handled_access_fs = all};
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    if (ruleset < 0) {
        lx_sb_fail(cfg, errno, "landlock: create_ruleset (ABI %d)", abi);
        return -1;
    }
    for (size_t i = 0; i < cfg->nro; i++) {
        if (add_path(cfg, ruleset, cfg->ro[i].path, read, all) < 0) {
            goto done;
        }
    }
    if (cfg->applied & LX_L_MOUNTNS) {
        if (add_path(cfg, ruleset, "/proc", LL_FS_READ_FILE | LL_FS_READ_DIR, all) < 0 ||
                add_path(cfg, ruleset, "/dev", LL_FS_READ_DIR, all) < 0 ||
                add_path(cfg, ruleset, "/tmp", all, all) < 0 ||
                add_path(cfg, ruleset, "/dev/shm", all, all) < 0) {
            goto done;
        }
    } else {
        if (add_path(cfg, ruleset, "/proc/self", LL_FS_READ_FILE | LL_FS_READ_DIR, all) < 0 ||
                (cfg->hostdir && add_path(cfg, ruleset, cfg->hostdir, all, all) < 0)) {
            goto done;
        }
    }
    static const char *const devs[] = {"null", "zero", "full", "random", "urandom"};
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
        snprintf(buf, sizeof(buf), "/dev/%s", devs[i]);
        if (add_path(cfg, ruleset, buf, LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE |
                     LL_FS_IOCTL_DEV, all) < 0) {
            goto done;
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        lx_sb_fail(cfg, errno, "no_new_privs");
        goto done;
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
        lx_sb_fail(cfg, errno, "landlock: restrict_self");
        goto done;
    }
    ret = 0;
done:
    close(ruleset);
    return ret;
}
