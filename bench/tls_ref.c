/*
 * tls_ref: the benchmark's reference for "what this machine can physically do" with TLS.
 *
 * A minimal TLS 1.3 stream over loopback with OpenSSL, as lean as a file transfer can be:
 * TLS_AES_128_GCM_SHA256 only, large application buffers (1 MiB), read-ahead with a 64 KiB
 * record buffer, TCP_NODELAY, no framing, no hashing, no protocol on top.
 *
 *   tls_ref server --cert CERT --key KEY --out PATH [--fsync] [--direct] [--port N]
 *       listens on 127.0.0.1 (port 0 = any), prints "listening on port N", accepts ONE
 *       connection, SSL_reads everything into a 1 MiB buffer and write(2)s it to PATH
 *       (/dev/null or a new file); with --fsync, fsync(2)s the file and its directory at the
 *       end; with --direct, opens the file O_DIRECT (page-aligned 1 MiB writes that bypass the
 *       page cache; a final partial block is written after turning O_DIRECT off).
 *       Prints "received BYTES" and exits 0.
 *   tls_ref client --port N --in FILE
 *       connects to 127.0.0.1:N, read(2)s FILE in 1 MiB chunks and SSL_writes each, then
 *       shuts down TLS and waits for the server to close (so the client's exit means the
 *       server has everything, and with --fsync, has made it durable).
 *
 * Built by bench/run.sh: gcc -O2 -o tls_ref tls_ref.c -lssl -lcrypto
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define READ_AHEAD (64 * 1024)

static void die(const char *what) {
  fprintf(stderr, "tls_ref: %s: %s\n", what, errno ? strerror(errno) : "");
  ERR_print_errors_fp(stderr);
  exit(1);
}

static SSL_CTX *context(int server, const char *cert, const char *key) {
  SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx) die("SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  if (SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256") != 1) die("set_ciphersuites");
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
  SSL_CTX_set_read_ahead(ctx, 1);
  SSL_CTX_set_default_read_buffer_len(ctx, READ_AHEAD);
  if (server) {
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) die("certificate");
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) die("private key");
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL); /* a benchmark, not a trust decision */
  }
  return ctx;
}

static int server(const char *cert, const char *key, const char *out, int do_fsync, int direct, int port) {
  SSL_CTX *ctx = context(1, cert, key);
  int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ls < 0) die("socket");
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
  if (listen(ls, 1) < 0) die("listen");
  socklen_t len = sizeof addr;
  getsockname(ls, (struct sockaddr *)&addr, &len);
  printf("listening on port %d\n", ntohs(addr.sin_port));
  fflush(stdout);

  int s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
  if (s < 0) die("accept");
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  close(ls);
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (direct ? O_DIRECT : 0), 0600);
  if (fd < 0) die(out);
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, s);
  if (SSL_accept(ssl) != 1) die("SSL_accept");

  char *buf = aligned_alloc(4096, CHUNK);
  if (!buf) die("malloc");
  long long total = 0;
  for (;;) {
    size_t fill = 0;
    int eof = 0;
    while (fill < CHUNK) { /* fill the large buffer from successive records, then one write */
      size_t got = 0;
      if (SSL_read_ex(ssl, buf + fill, CHUNK - fill, &got) != 1) {
        int err = SSL_get_error(ssl, 0);
        if (err == SSL_ERROR_ZERO_RETURN) { eof = 1; break; }
        die("SSL_read");
      }
      fill += got;
    }
    if (direct && fill % 4096 != 0) /* O_DIRECT needs block-sized writes: the tail goes buffered */
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT);
    for (size_t off = 0; off < fill;) {
      ssize_t n = write(fd, buf + off, fill - off);
      if (n < 0) { if (errno == EINTR) continue; die("write"); }
      off += (size_t)n;
    }
    total += (long long)fill;
    if (eof) break;
  }
  if (do_fsync) {
    if (fsync(fd) < 0) die("fsync");
    char *copy = strdup(out);
    int dir = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) { fsync(dir); close(dir); }
    free(copy);
  }
  close(fd);
  SSL_shutdown(ssl);
  SSL_free(ssl);
  close(s);
  printf("received %lld\n", total);
  return 0;
}

static int client(int port, const char *in) {
  SSL_CTX *ctx = context(0, NULL, NULL);
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) die("socket");
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect");
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* no Nagle wait behind the handshake */
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, s);
  if (SSL_connect(ssl) != 1) die("SSL_connect");
  int fd = open(in, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(in);
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  char *buf = aligned_alloc(4096, CHUNK);
  if (!buf) die("malloc");
  for (;;) {
    ssize_t n = read(fd, buf, CHUNK);
    if (n < 0) { if (errno == EINTR) continue; die("read"); }
    if (n == 0) break;
    size_t written = 0;
    if (SSL_write_ex(ssl, buf, (size_t)n, &written) != 1 || written != (size_t)n) die("SSL_write");
  }
  close(fd);
  SSL_shutdown(ssl); /* close_notify: the server's SSL_read sees end of stream */
  char b;
  while (read(s, &b, 1) > 0) {} /* the server closes after it has written (and synced) all */
  SSL_free(ssl);
  close(s);
  return 0;
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) goto usage;
  const char *cert = NULL, *key = NULL, *out = NULL, *in = NULL;
  int do_fsync = 0, direct = 0, port = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--fsync")) { do_fsync = 1; continue; }
    if (!strcmp(a, "--direct")) { direct = 1; continue; }
    if (!v) goto usage;
    if (!strcmp(a, "--cert")) cert = v;
    else if (!strcmp(a, "--key")) key = v;
    else if (!strcmp(a, "--out")) out = v;
    else if (!strcmp(a, "--in")) in = v;
    else if (!strcmp(a, "--port")) port = atoi(v);
    else goto usage;
    i++;
  }
  if (!strcmp(argv[1], "server") && cert && key && out) return server(cert, key, out, do_fsync, direct, port);
  if (!strcmp(argv[1], "client") && in && port > 0) return client(port, in);
usage:
  fprintf(stderr,
          "usage: tls_ref server --cert CERT --key KEY --out PATH [--fsync] [--direct] [--port N]\n"
          "       tls_ref client --port N --in FILE\n");
  return 64;
}
