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
#include <openssl/bn.h>
#include <openssl/asn1.h>

static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_mode(ctx, mode);
}
static inline long shim_SSL_CTX_clear_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_clear_mode(ctx, mode);
}
static inline long shim_SSL_CTX_set_options(SSL_CTX *ctx, long options) {
  return (long)SSL_CTX_set_options(ctx, (uint64_t)options);
}
static inline int shim_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline int shim_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }

// SSL_OP_* are built with SSL_OP_BIT(n), a cast expression Swift does not import.
static inline long shim_SSL_OP_NO_TICKET(void) { return (long)SSL_OP_NO_TICKET; }

static inline long shim_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline void shim_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int on) {
  SSL_CTX_set_read_ahead(ctx, on);
}
/// Points *data at the memory BIO's contents (owned by the BIO) and returns their length.
static inline long shim_BIO_get_mem_data(BIO *bio, char **data) {
  return BIO_get_mem_data(bio, data);
}
static inline int shim_MBSTRING_UTF8(void) { return MBSTRING_UTF8; }
static inline int shim_EVP_PKEY_ED25519(void) { return EVP_PKEY_ED25519; }
static inline int shim_ERR_GET_LIB(unsigned long code) { return ERR_GET_LIB(code); }
static inline int shim_ERR_GET_REASON(unsigned long code) { return ERR_GET_REASON(code); }
static inline void shim_OPENSSL_free(void *p) { OPENSSL_free(p); }

#endif
