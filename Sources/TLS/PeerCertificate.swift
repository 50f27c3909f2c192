import COpenSSL

/// What a peer's certificate says about it, read once after the handshake.
///
/// `fingerprint` is share's device ID (SHA-256 of the SubjectPublicKeyInfo); other protocols
/// identify a device differently (LocalSend hashes the whole certificate), so the DER encoding
/// is kept for them.
package struct PeerCertificate: Sendable, Equatable {
  /// SHA-256 of the DER SubjectPublicKeyInfo: the peer's share device ID.
  package let fingerprint: Fingerprint
  /// The whole certificate, DER-encoded (`i2d_X509`).
  package let der: [UInt8]
  /// The subject CN as the peer claims it; unverified text from the network.
  package let commonName: String?

  package init(fingerprint: Fingerprint, der: [UInt8], commonName: String?) {
    self.fingerprint = fingerprint
    self.der = der
    self.commonName = commonName
  }

  /// The certificate the peer of a finished handshake presented (`SSL_get0_peer_certificate`);
  /// nil if it presented none and none is `required`.
  static func of(_ ssl: OpaquePointer, required: Bool, operation: String) throws(TLSError)
    -> PeerCertificate?
  {
    guard let peer = SSL_get0_peer_certificate(ssl) else {
      if required {
        throw .noPeerCertificate(detail: "\(operation): SSL_get0_peer_certificate returned NULL")
      }
      return nil
    }
    guard let certificate = read(peer) else {
      throw .certificate(detail: "\(operation): cannot encode the peer's certificate")
    }
    return certificate
  }

  /// Reads a borrowed `X509 *`; nil if its key or the certificate cannot be encoded.
  static func read(_ x509: OpaquePointer) -> PeerCertificate? {
    guard let fingerprint = Certificate.fingerprint(of: x509) else { return nil }
    let length = i2d_X509(x509, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor = buffer.baseAddress
      return i2d_X509(x509, &cursor)
    }
    guard written == length else { return nil }
    return PeerCertificate(
      fingerprint: fingerprint, der: der, commonName: Certificate.commonName(of: x509))
  }
}
