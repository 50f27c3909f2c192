#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/fs.h>

int clinux_rename_noreplace(int fromdirfd, const char *from, int todirfd, const char *to) {
  return (int)syscall(SYS_renameat2, fromdirfd, from, todirfd, to, RENAME_NOREPLACE);
}

int clinux_syncfs(int fd) { return syncfs(fd); }

int clinux_fadvise_sequential(int fd) { return posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); }

int clinux_fadvise_dontneed(int fd, off_t offset, off_t length) {
  return posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED);
}

int clinux_start_writeback(int fd, off_t offset, off_t length) {
  return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int clinux_close_from(int lowest) {
  return (int)syscall(SYS_close_range, (unsigned)lowest, ~0U, 0);
}

int clinux_peer_uid(int fd, uid_t *uid) {
  struct ucred credentials;
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
  *uid = credentials.uid;
  return 0;
}

int clinux_o_direct(void) { return O_DIRECT; }
