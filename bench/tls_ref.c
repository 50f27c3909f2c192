/*
 * tls_ref: the benchmark's reference for "what this machine can physically do" with TLS.
 *
 * A minimal TLS 1.3 stream over loopback with OpenSSL, as lean as a file transfer can be:
 * TLS_AES_128_GCM_SHA256 only, large application buffers (1 MiB), read-ahead with a 64 KiB
 * record buffer, TCP_NODELAY, no framing, no hashing, no protocol on top.
 *
 * With --sha256 (on both sides) it also does what share does on top of TLS: each side hashes
 * every byte with SHA-256, on the very buffers that go to or come from TLS, and the receiver
 * checks the sender's digest. The stream is then framed: 8 bytes of length (big-endian), the
 * bytes, the 32-byte digest. Each side runs the digest on a second thread, as share does: the
 * sender's reader thread reads and hashes while the main thread encrypts and sends; the
 * receiver's main thread receives and decrypts while a writer thread hashes and writes, passing
 * a ring of three 1 MiB buffers between them.
 *
 *   tls_ref server --cert CERT --key KEY --out PATH [--fsync] [--direct] [--sha256] [--port N]
 *       listens on 127.0.0.1 (port 0 = any), prints "listening on port N", accepts ONE
 *       connection, SSL_reads everything into a 1 MiB buffer and write(2)s it to PATH
 *       (/dev/null or a new file); with --fsync, fsync(2)s the file and its directory at the
 *       end; with --direct, opens the file O_DIRECT (page-aligned 1 MiB writes that bypass the
 *       page cache; a final partial block is written after turning O_DIRECT off).
 *       Prints "received BYTES" and exits 0.
 *   tls_ref client --port N --in FILE [--sha256]
 *       connects to 127.0.0.1:N, read(2)s FILE in 1 MiB chunks and SSL_writes each, then
 *       shuts down TLS and waits for the server to close (so the client's exit means the
 *       server has everything, and with --fsync, has made it durable).
 *
 * Built by bench/run.sh: gcc -O2 -pthread -o tls_ref tls_ref.c -lssl -lcrypto
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define READ_AHEAD (64 * 1024)
#define RING 3
#define DIGEST 32

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

/* A ring of RING aligned buffers handed from one producer thread to one consumer thread in
 * order; a buffer of length 0 ends the stream. */
struct ring {
  char *buf[RING];
  size_t len[RING];
  long long produced, consumed;
  pthread_mutex_t mutex;
  pthread_cond_t changed;
};

static void ring_init(struct ring *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < RING; i++)
    if (!(r->buf[i] = aligned_alloc(4096, CHUNK))) die("malloc");
  pthread_mutex_init(&r->mutex, NULL);
  pthread_cond_init(&r->changed, NULL);
}

/* Producer: the next free buffer (waits while all are full). */
static int ring_take_free(struct ring *r) {
  pthread_mutex_lock(&r->mutex);
  while (r->produced - r->consumed >= RING) pthread_cond_wait(&r->changed, &r->mutex);
  int slot = (int)(r->produced % RING);
  pthread_mutex_unlock(&r->mutex);
  return slot;
}

static void ring_submit(struct ring *r, int slot, size_t len) {
  pthread_mutex_lock(&r->mutex);
  r->len[slot] = len;
  r->produced++;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->mutex);
}

/* Consumer: the next full buffer (waits for one). */
static int ring_take_full(struct ring *r) {
  pthread_mutex_lock(&r->mutex);
  while (r->produced == r->consumed) pthread_cond_wait(&r->changed, &r->mutex);
  int slot = (int)(r->consumed % RING);
  pthread_mutex_unlock(&r->mutex);
  return slot;
}

static void ring_release(struct ring *r) {
  pthread_mutex_lock(&r->mutex);
  r->consumed++;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->mutex);
}

static EVP_MD_CTX *sha256_new(void) {
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) die("SHA-256");
  return md;
}

/* Reads exactly `len` bytes from TLS into `buf`; returns 0 at a clean end of stream before any. */
static int ssl_read_exact(SSL *ssl, char *buf, size_t len) {
  size_t fill = 0;
  while (fill < len) {
    size_t got = 0;
    if (SSL_read_ex(ssl, buf + fill, len - fill, &got) != 1) {
      if (SSL_get_error(ssl, 0) == SSL_ERROR_ZERO_RETURN && fill == 0) return 0;
      die("SSL_read");
    }
    fill += got;
  }
  return 1;
}

static void write_all(int fd, const char *buf, size_t len) {
  for (size_t off = 0; off < len;) {
    ssize_t n = write(fd, buf + off, len - off);
    if (n < 0) { if (errno == EINTR) continue; die("write"); }
    off += (size_t)n;
  }
}

/* The receiver's writer thread (--sha256): hashes each received buffer, then writes it. */
struct writer { struct ring *ring; EVP_MD_CTX *md; int fd, direct; };

static void *writer_main(void *arg) {
  struct writer *w = arg;
  for (;;) {
    int slot = ring_take_full(w->ring);
    size_t len = w->ring->len[slot];
    if (len == 0) break;
    if (EVP_DigestUpdate(w->md, w->ring->buf[slot], len) != 1) die("SHA-256");
    if (w->direct && len % 4096 != 0) /* O_DIRECT needs block-sized writes: the tail goes buffered */
      fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) & ~O_DIRECT);
    write_all(w->fd, w->ring->buf[slot], len);
    ring_release(w->ring);
  }
  return NULL;
}

/* --sha256 receiving: length, bytes (received here, hashed and written by the writer thread), digest. */
static long long receive_hashed(SSL *ssl, int fd, int direct) {
  unsigned char header[8], theirs[DIGEST], ours[DIGEST];
  if (!ssl_read_exact(ssl, (char *)header, sizeof header)) die("no length header");
  unsigned long long left = 0;
  for (int i = 0; i < 8; i++) left = left << 8 | header[i];
  long long total = (long long)left;
  struct ring ring;
  ring_init(&ring);
  struct writer w = {&ring, sha256_new(), fd, direct};
  pthread_t thread;
  if (pthread_create(&thread, NULL, writer_main, &w) != 0) die("pthread_create");
  while (left > 0) {
    int slot = ring_take_free(&ring);
    size_t len = left < CHUNK ? (size_t)left : CHUNK;
    if (!ssl_read_exact(ssl, ring.buf[slot], len)) die("stream ended early");
    ring_submit(&ring, slot, len);
    left -= len;
  }
  ring_submit(&ring, ring_take_free(&ring), 0);
  pthread_join(thread, NULL);
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(w.md, ours, &n) != 1) die("SHA-256");
  if (!ssl_read_exact(ssl, (char *)theirs, sizeof theirs)) die("no digest");
  if (memcmp(ours, theirs, DIGEST) != 0) { errno = 0; die("SHA-256 digest mismatch"); }
  return total;
}

static int server(const char *cert, const char *key, const char *out, int do_fsync, int direct, int hashed, int port) {
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

  long long total = 0;
  if (hashed) total = receive_hashed(ssl, fd, direct);
  char *buf = hashed ? NULL : aligned_alloc(4096, CHUNK);
  if (!hashed && !buf) die("malloc");
  while (!hashed) {
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
    write_all(fd, buf, fill);
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

/* The sender's reader thread (--sha256): reads the file into each free buffer and hashes it. */
struct reader { struct ring *ring; EVP_MD_CTX *md; int fd; };

static void *reader_main(void *arg) {
  struct reader *r = arg;
  for (;;) {
    int slot = ring_take_free(r->ring);
    ssize_t n = read(r->fd, r->ring->buf[slot], CHUNK);
    if (n < 0) { if (errno == EINTR) continue; die("read"); }
    if (n > 0 && EVP_DigestUpdate(r->md, r->ring->buf[slot], (size_t)n) != 1) die("SHA-256");
    ring_submit(r->ring, slot, (size_t)n);
    if (n == 0) break;
  }
  return NULL;
}

static void ssl_write_all(SSL *ssl, const void *buf, size_t len) {
  size_t written = 0;
  if (SSL_write_ex(ssl, buf, len, &written) != 1 || written != len) die("SSL_write");
}

/* --sha256 sending: length, bytes (read and hashed by the reader thread, sent here), digest. */
static void send_hashed(SSL *ssl, int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0) die("fstat");
  unsigned char header[8];
  for (int i = 0; i < 8; i++) header[i] = (unsigned char)((unsigned long long)st.st_size >> (56 - 8 * i));
  ssl_write_all(ssl, header, sizeof header);
  struct ring ring;
  ring_init(&ring);
  struct reader r = {&ring, sha256_new(), fd};
  pthread_t thread;
  if (pthread_create(&thread, NULL, reader_main, &r) != 0) die("pthread_create");
  long long sent = 0;
  for (;;) {
    int slot = ring_take_full(&ring);
    size_t len = ring.len[slot];
    if (len == 0) break;
    ssl_write_all(ssl, ring.buf[slot], len);
    sent += (long long)len;
    ring_release(&ring);
  }
  pthread_join(thread, NULL);
  if (sent != (long long)st.st_size) { errno = 0; die("the file changed size while it was sent"); }
  unsigned char digest[DIGEST];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(r.md, digest, &n) != 1) die("SHA-256");
  ssl_write_all(ssl, digest, sizeof digest);
}

static int client(int port, const char *in, int hashed) {
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
  if (hashed) {
    send_hashed(ssl, fd);
  } else {
    char *buf = aligned_alloc(4096, CHUNK);
    if (!buf) die("malloc");
    for (;;) {
      ssize_t n = read(fd, buf, CHUNK);
      if (n < 0) { if (errno == EINTR) continue; die("read"); }
      if (n == 0) break;
      ssl_write_all(ssl, buf, (size_t)n);
    }
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
  int do_fsync = 0, direct = 0, hashed = 0, port = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--fsync")) { do_fsync = 1; continue; }
    if (!strcmp(a, "--direct")) { direct = 1; continue; }
    if (!strcmp(a, "--sha256")) { hashed = 1; continue; }
    if (!v) goto usage;
    if (!strcmp(a, "--cert")) cert = v;
    else if (!strcmp(a, "--key")) key = v;
    else if (!strcmp(a, "--out")) out = v;
    else if (!strcmp(a, "--in")) in = v;
    else if (!strcmp(a, "--port")) port = atoi(v);
    else goto usage;
    i++;
  }
  if (!strcmp(argv[1], "server") && cert && key && out) return server(cert, key, out, do_fsync, direct, hashed, port);
  if (!strcmp(argv[1], "client") && in && port > 0) return client(port, in, hashed);
usage:
  fprintf(stderr,
          "usage: tls_ref server --cert CERT --key KEY --out PATH [--fsync] [--direct] [--sha256] [--port N]\n"
          "       tls_ref client --port N --in FILE [--sha256]\n");
  return 64;
}
