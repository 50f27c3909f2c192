import COpenSSL
import Foundation

/// Immutable TLS configuration for one role; owns an `SSL_CTX`, freed in `deinit`.
///
/// - TLS 1.3 only (`TLS_method` with min and max protocol version 1.3).
/// - Cipher suites, in order of preference: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384,
///   TLS_CHACHA20_POLY1305_SHA256.
/// - The identity's Ed25519 key and self-signed certificate are presented to the peer.
/// - The peer must present a certificate (`SSL_VERIFY_PEER`, plus
///   `SSL_VERIFY_FAIL_IF_NO_PEER_CERT` for the server), unless a server context is made with
///   `clientCertificates: .optional` (LocalSend clients may present none). Any self-signed certificate passes the
///   chain check: who the peer *is* is decided above this layer by comparing
///   `TLSConnection.peerFingerprint` with a pinned or advertised ID. TLS 1.3's CertificateVerify
///   proves the peer holds the certificate's private key, so the fingerprint cannot be forged.
/// - No session tickets and no session cache: every connection does a full handshake.
/// - Read-ahead on with a 64 KiB read buffer, so one `read(2)` picks up several records.
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in `init` and never changed after;
/// OpenSSL allows `SSL_new` on a shared, unchanging `SSL_CTX` from several threads.
package final class TLSContext: @unchecked Sendable {
  /// Which side of the handshake connections made from this context take.
  package enum Role: Sendable {
    /// Accepts connections and requires a client certificate.
    case server
    /// Initiates connections and presents its certificate when asked.
    case client
  }

  /// Whether a server demands a certificate from its clients.
  package enum ClientCertificates: Sendable {
    /// The handshake fails without one (share's own protocol).
    case required
    /// Asked for, not demanded: `TLSConnection.peerCertificate` is nil when none came.
    case optional
  }

  /// The role this context was made for.
  package let role: Role
  /// Whether a server context demands client certificates; `.required` for clients too.
  package let clientCertificates: ClientCertificates
  /// The identity presented to peers.
  package let identity: DeviceIdentity
  /// The owned `SSL_CTX *`.
  let pointer: OpaquePointer

  /// The TLS 1.3 cipher suites, most preferred first.
  package static let cipherSuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

  /// The size of OpenSSL's per-connection read buffer with read-ahead on: room for about four
  /// 16 KiB records, so one `read(2)` takes in several records instead of two reads (header,
  /// body) per record. Measured on loopback: 32-64 KiB cost the least CPU per GiB; 256 KiB and
  /// 1 MiB were slower (the buffer falls out of cache before the copy to the caller).
  static let readBufferLength = 64 * 1024

  /// Builds the `SSL_CTX` for `role` presenting `identity`; `clientCertificates` only matters
  /// for a server.
  package init(
    identity: DeviceIdentity, role: Role, clientCertificates: ClientCertificates = .required
  ) throws(TLSError) {
    OpenSSLErrorQueue.clear()
    guard let context = SSL_CTX_new(TLS_method()) else {
      throw .configuration(detail: OpenSSLErrorQueue.drainDetail("SSL_CTX_new"))
    }
    self.pointer = context
    self.role = role
    self.identity = identity
    self.clientCertificates = role == .server ? clientCertificates : .required

    func check(_ ok: Bool, _ operation: String) throws(TLSError) {
      if !ok { throw .configuration(detail: OpenSSLErrorQueue.drainDetail(operation)) }
    }
    try check(
      shim_SSL_CTX_set_min_proto_version(context, shim_TLS1_3_VERSION()) == 1,
      "SSL_CTX_set_min_proto_version(TLS1_3)")
    try check(
      shim_SSL_CTX_set_max_proto_version(context, shim_TLS1_3_VERSION()) == 1,
      "SSL_CTX_set_max_proto_version(TLS1_3)")
    try check(
      SSL_CTX_set_ciphersuites(context, Self.cipherSuites) == 1, "SSL_CTX_set_ciphersuites")

    _ = shim_SSL_CTX_set_options(context, shim_SSL_OP_NO_TICKET())
    _ = shim_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
    try check(SSL_CTX_set_num_tickets(context, 0) == 1, "SSL_CTX_set_num_tickets(0)")

    // Whole writes only; SSL_read/SSL_write retry internally after non-application records.
    _ = shim_SSL_CTX_clear_mode(
      context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS))
    _ = shim_SSL_CTX_set_mode(context, Int(SSL_MODE_AUTO_RETRY))
    shim_SSL_CTX_set_read_ahead(context, 1)
    SSL_CTX_set_default_read_buffer_len(context, Self.readBufferLength)

    let parsedCertificate = Certificate.parse(pem: Array(identity.certificatePEM.utf8))
    guard let certificate = parsedCertificate else {
      throw .certificate(detail: "the identity's certificate PEM does not parse")
    }
    let key = try PrivateKey.parse(pem: identity.privateKeyPEM, path: identity.keyURL.path)
    OpenSSLErrorQueue.clear()
    try check(SSL_CTX_use_certificate(context, certificate.pointer) == 1, "SSL_CTX_use_certificate")
    try check(SSL_CTX_use_PrivateKey(context, key.pointer) == 1, "SSL_CTX_use_PrivateKey")
    try check(SSL_CTX_check_private_key(context) == 1, "SSL_CTX_check_private_key")

    let demand = role == .server && clientCertificates == .required
    let mode: Int32 = demand ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER
    // Accept any certificate chain, self-signed included: identity is the fingerprint, checked
    // by the caller. Non-capturing, so it is a plain C function pointer.
    SSL_CTX_set_verify(context, mode, { _, _ in 1 })
  }

  deinit {
    SSL_CTX_free(pointer)
  }
}
