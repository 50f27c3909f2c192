#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>
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
