import COpenSSL

/// An Ed25519 private key; owns one `EVP_PKEY *`, freed in `deinit`.
///
/// Immutable after creation; OpenSSL allows concurrent read-only use of an `EVP_PKEY`, but this
/// type is only used while building an identity or a context, on the caller's thread.
final class PrivateKey {
  /// The owned `EVP_PKEY *`.
  let pointer: OpaquePointer

  private init(owning pointer: OpaquePointer) {
    self.pointer = pointer
  }

  deinit {
    EVP_PKEY_free(pointer)
  }

  /// Generates a fresh Ed25519 key (`EVP_PKEY_CTX_new_id` + `EVP_PKEY_keygen`).
  static func generateEd25519() throws(TLSError) -> PrivateKey {
    OpenSSLErrorQueue.clear()
    guard let context = EVP_PKEY_CTX_new_id(shim_EVP_PKEY_ED25519(), nil) else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("EVP_PKEY_CTX_new_id(ED25519)"))
    }
    defer { EVP_PKEY_CTX_free(context) }
    var key: OpaquePointer? = nil
    guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key
    else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("EVP_PKEY_keygen(ED25519)"))
    }
    return PrivateKey(owning: key)
  }

  /// Parses a PEM private key (`PEM_read_bio_PrivateKey`). Encrypted keys are refused rather
  /// than prompting for a passphrase; keys other than Ed25519 are refused.
  /// `path` only labels errors.
  static func parse(pem: [UInt8], path: String) throws(TLSError) -> PrivateKey {
    OpenSSLErrorQueue.clear()
    let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else {
        return nil
      }
      defer { BIO_free(bio) }
      // A passphrase callback that supplies none: never read the terminal.
      return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
    }
    guard let parsed else {
      throw .identity(
        path: path,
        detail: OpenSSLErrorQueue.drainDetail(
          "PEM_read_bio_PrivateKey: not a readable PEM private key"))
    }
    let key = PrivateKey(owning: parsed)
    guard EVP_PKEY_get_base_id(parsed) == shim_EVP_PKEY_ED25519() else {
      throw .identity(path: path, detail: "the private key is not an Ed25519 key")
    }
    return key
  }

  /// The key as PKCS#8 PEM ("BEGIN PRIVATE KEY"), unencrypted (`PEM_write_bio_PrivateKey`).
  func pem() throws(TLSError) -> [UInt8] {
    OpenSSLErrorQueue.clear()
    guard let bio = BIO_new(BIO_s_mem()) else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("BIO_new"))
    }
    defer { BIO_free(bio) }
    guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("PEM_write_bio_PrivateKey"))
    }
    return memoryBIOContents(bio)
  }
}

/// Copies the contents of a memory BIO (`BIO_get_mem_data`).
func memoryBIOContents(_ bio: OpaquePointer) -> [UInt8] {
  var data: UnsafeMutablePointer<CChar>? = nil
  let length = shim_BIO_get_mem_data(bio, &data)
  guard let data, length > 0 else { return [] }
  return Array(UnsafeRawBufferPointer(start: data, count: length))
}
