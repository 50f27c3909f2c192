#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/fs.h>

int clinux_rename_noreplace(int fromdirfd, const char *from, int todirfd, const char *to) {
  return (int)syscall(SYS_renameat2, fromdirfd, from, todirfd, to, RENAME_NOREPLACE);
}

int clinux_syncfs(int fd) { return syncfs(fd); }

int clinux_set_modification_time(const char *path, int64_t seconds, long nanoseconds) {
  struct timespec times[2] = {{.tv_sec = 0, .tv_nsec = UTIME_OMIT}, {.tv_sec = seconds, .tv_nsec = nanoseconds}};
  return utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW);
}

int clinux_fadvise_sequential(int fd) { return posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); }

int clinux_peer_uid(int fd, uid_t *uid) {
  struct ucred credentials;
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
  *uid = credentials.uid;
  return 0;
}

int clinux_o_direct(void) { return O_DIRECT; }

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int clinux_accept_cloexec(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC); }

int clinux_eventfd_cloexec(void) { return eventfd(0, EFD_CLOEXEC); }

int clinux_o_path(void) { return O_PATH; }

// Landlock, declared here rather than taken from <linux/landlock.h>, which older distributions
// ship without the later access rights. The system call numbers are the same on every
// architecture (they were added after the numbering was unified).
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct clinux_landlock_ruleset_attr {
  uint64_t handled_access_fs;
};

struct clinux_landlock_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

int clinux_landlock_abi(void) {
  return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
}

int clinux_landlock_create_ruleset(uint64_t handled_access_fs) {
  struct clinux_landlock_ruleset_attr attr = {.handled_access_fs = handled_access_fs};
  return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0U);
}

int clinux_landlock_allow_beneath(int ruleset_fd, int parent_fd, uint64_t allowed_access) {
  struct clinux_landlock_path_beneath_attr attr = {.allowed_access = allowed_access, .parent_fd = parent_fd};
  return (int)syscall(SYS_landlock_add_rule, ruleset_fd, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &attr, 0U);
}

int clinux_landlock_restrict_self(int ruleset_fd) {
  return (int)syscall(SYS_landlock_restrict_self, ruleset_fd, 0U);
}

int clinux_set_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }

int clinux_set_name(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

int clinux_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int clinux_fix_malloc_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int clinux_fix_malloc_trim_threshold(int bytes) { return mallopt(M_TRIM_THRESHOLD, bytes); }

int clinux_malloc_trim(void) { return malloc_trim(0); }

/* Whether the mapping named at `path` is the program's own file or a shared library's: loaded
   at start and never unmapped, so no other thread can unmap it and map something else at its
   address while it is being trimmed. */
static int clinux_is_program_or_library(const char *path, const char *program) {
  if (strcmp(path, program) == 0) return 1;
  const char *name = strrchr(path, '/');
  return name != NULL && strstr(name, ".so") != NULL;
}

/* One mapping of /proc/self/smaps, as far as it has been read. */
struct clinux_mapping {
  unsigned long start, end;
  int candidate, has_anonymous, has_swap;
  unsigned long anonymous, swap;
};

static int clinux_trim_mapping(const struct clinux_mapping *mapping) {
  if (!mapping->candidate || !mapping->has_anonymous || !mapping->has_swap) return 0;
  /* A page copied by the process (relocated data), in memory or swapped out, would be lost. */
  if (mapping->anonymous != 0 || mapping->swap != 0) return 0;
  return madvise((void *)mapping->start, mapping->end - mapping->start, MADV_DONTNEED) == 0;
}

int clinux_trim_file_mappings(void) {
  char program[4096];
  ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
  if (length < 0) return -1;
  program[length] = 0;
  FILE *smaps = fopen("/proc/self/smaps", "re");
  if (smaps == NULL) return -1;
  char line[4352];
  struct clinux_mapping mapping = {0};
  int trimmed = 0, whole = 1;
  while (fgets(line, sizeof line, smaps) != NULL) {
    int continued = !whole;
    whole = strchr(line, '\n') != NULL;
    if (continued) continue; /* the rest of a line longer than the buffer */
    unsigned long first = 0, last = 0;
    char permissions[5] = {0};
    int path = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &first, &last, permissions, &path) >= 3 && path > 0) {
      trimmed += clinux_trim_mapping(&mapping);
      line[strcspn(line, "\n")] = 0;
      /* A file's, private and never writable, and one that stays mapped. */
      int readOnly = permissions[0] == 'r' && permissions[1] == '-' && permissions[3] == 'p';
      mapping = (struct clinux_mapping){.start = first, .end = last};
      mapping.candidate = whole && readOnly && line[path] == '/' && clinux_is_program_or_library(line + path, program);
      continue;
    }
    if (sscanf(line, "Anonymous: %lu kB", &mapping.anonymous) == 1) mapping.has_anonymous = 1;
    if (sscanf(line, "Swap: %lu kB", &mapping.swap) == 1) mapping.has_swap = 1;
  }
  trimmed += clinux_trim_mapping(&mapping);
  fclose(smaps);
  return trimmed;
}
