#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/fs.h>

int clinux_rename_noreplace(int fromdirfd, const char *from, int todirfd, const char *to) {
  return (int)syscall(SYS_renameat2, fromdirfd, from, todirfd, to, RENAME_NOREPLACE);
}

int clinux_syncfs(int fd) { return syncfs(fd); }

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

int clinux_malloc_trim(void) { return malloc_trim(0); }

int clinux_trim_file_mappings(void) {
  FILE *smaps = fopen("/proc/self/smaps", "re");
  if (smaps == NULL) return -1;
  char line[4352];
  unsigned long start = 0, end = 0;
  int candidate = 0, trimmed = 0;
  while (fgets(line, sizeof line, smaps) != NULL) {
    unsigned long first = 0, last = 0;
    char permissions[5] = {0};
    int path = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &first, &last, permissions, &path) >= 3 && path > 0) {
      // A new mapping: a file's, private and never writable?
      start = first;
      end = last;
      candidate = line[path] == '/' && permissions[0] == 'r' && permissions[1] == '-' && permissions[3] == 'p';
      continue;
    }
    unsigned long anonymous = 0;
    if (candidate && sscanf(line, "Anonymous: %lu kB", &anonymous) == 1) {
      // Only when none of its pages is a private copy: those would be lost, not given back.
      if (anonymous == 0 && madvise((void *)start, end - start, MADV_DONTNEED) == 0) trimmed += 1;
      candidate = 0;
    }
  }
  fclose(smaps);
  return trimmed;
}
