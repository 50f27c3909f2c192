#ifndef SHARE_CLINUX_H
#define SHARE_CLINUX_H
// Linux calls that Swift's Glibc module does not import (they need _GNU_SOURCE).
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// renameat2(2) with RENAME_NOREPLACE: moves `from` to `to` only if `to` does not exist,
/// atomically; works for directories too. Returns 0 or -1 with errno set.
int clinux_rename_noreplace(int fromdirfd, const char *from, int todirfd, const char *to);

/// syncfs(2): flushes the whole filesystem that `fd` lives on.
int clinux_syncfs(int fd);

/// utimensat(AT_FDCWD, path, {UTIME_OMIT, {seconds, nanoseconds}}, AT_SYMLINK_NOFOLLOW): sets the
/// modification time of `path` (of a symbolic link itself), leaving its access time. Swift does
/// not import UTIME_OMIT. Returns 0 or -1 with errno set.
int clinux_set_modification_time(const char *path, int64_t seconds, long nanoseconds);

/// posix_fadvise(2) with POSIX_FADV_SEQUENTIAL over the whole file (best effort).
int clinux_fadvise_sequential(int fd);

/// The user ID of the process at the other end of a Unix-domain socket (SO_PEERCRED).
/// Returns 0 and sets *uid, or -1 with errno set.
int clinux_peer_uid(int fd, uid_t *uid);
/// The O_DIRECT open flag (only defined with _GNU_SOURCE).
int clinux_o_direct(void);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends are close-on-exec. Returns 0 or -1 with errno set.
int clinux_pipe_cloexec(int fds[2]);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): the new descriptor is blocking and close-on-exec.
/// Returns it, or -1 with errno set.
int clinux_accept_cloexec(int fd);

/// eventfd(0, EFD_CLOEXEC): a descriptor another thread can make readable to wake a poll.
/// Returns it, or -1 with errno set.
int clinux_eventfd_cloexec(void);

/// The O_PATH open flag (only defined with _GNU_SOURCE): a descriptor that names a file without
/// opening it for reading or writing, as Landlock rules take.
int clinux_o_path(void);

/// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): the Landlock ABI version the
/// kernel supports, or -1 with errno set (ENOSYS: no Landlock in this kernel; EOPNOTSUPP: built
/// in but disabled at boot).
int clinux_landlock_abi(void);

/// landlock_create_ruleset with only `handled_access_fs` set: a new ruleset descriptor
/// (close-on-exec), or -1 with errno set.
int clinux_landlock_create_ruleset(uint64_t handled_access_fs);

/// landlock_add_rule(LANDLOCK_RULE_PATH_BENEATH): allows `allowed_access` beneath the folder (or
/// on the file) that `parent_fd` names. Returns 0, or -1 with errno set.
int clinux_landlock_allow_beneath(int ruleset_fd, int parent_fd, uint64_t allowed_access);

/// landlock_restrict_self(ruleset_fd, 0): confines the calling thread, and every thread and
/// process it creates from now on, to the ruleset. Returns 0, or -1 with errno set.
int clinux_landlock_restrict_self(int ruleset_fd);

/// prctl(PR_SET_NO_NEW_PRIVS, 1): from now on, execve never grants privileges (set-user-ID bits,
/// file capabilities), for this thread and its descendants; Landlock requires it of an
/// unprivileged process. Returns 0, or -1 with errno set.
int clinux_set_no_new_privs(void);

/// prctl(PR_SET_NAME, name): the calling thread's name, which ps, top, pgrep and killall show
/// for the process when it is the main thread (the kernel keeps the first 15 bytes). Returns 0,
/// or -1 with errno set.
int clinux_set_name(const char *name);

/// mallopt(M_ARENA_MAX, count): glibc's malloc keeps at most `count` arenas (its default is 8 per
/// core, each holding on to what its threads freed). Returns 1 on success, 0 on error.
int clinux_limit_malloc_arenas(int count);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` get their own mapping,
/// returned to the system when freed; setting it turns off glibc's raising of the threshold
/// after each such free. Returns 1 on success, 0 on error.
int clinux_fix_malloc_mmap_threshold(int bytes);

/// mallopt(M_TRIM_THRESHOLD, bytes): the free memory at the top of an arena is given back to the
/// system only once it reaches `bytes`. Returns 1 on success, 0 on error.
int clinux_fix_malloc_trim_threshold(int bytes);

/// malloc_trim(0): gives the free memory of every malloc arena back to the system. Returns 1
/// when some was given back, else 0.
int clinux_malloc_trim(void);

/// Gives back the resident pages of the program's and its shared libraries' mappings that the
/// process can only read (code, read-only data) and in which no page is a private copy, in
/// memory or swapped out (/proc/self/smaps: Anonymous and Swap are 0): those pages are the
/// file's own and come back unchanged from the page cache when used again. Other files' mappings
/// are left alone: another thread could unmap one and map something else at its address while
/// it is being trimmed. Returns how many mappings it trimmed, or -1 with errno set (when
/// /proc/self/exe or /proc/self/smaps cannot be read).
int clinux_trim_file_mappings(void);

#endif
