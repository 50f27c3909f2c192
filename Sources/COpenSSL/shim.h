#ifndef SHARE_COPENSSL_SHIM_H
#define SHARE_COPENSSL_SHIM_H
// OpenSSL for Swift. Function-like macros do not import, so the few that are needed
// are re-exposed here as static inline functions named shim_*.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/bio.h>

static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_mode(ctx, mode);
}
static inline long shim_SSL_CTX_set_options(SSL_CTX *ctx, long options) {
  return (long)SSL_CTX_set_options(ctx, (uint64_t)options);
}
static inline int shim_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }
#endif
