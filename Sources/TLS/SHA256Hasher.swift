import COpenSSL

/// Incremental SHA-256 through OpenSSL's EVP interface (`EVP_DigestInit_ex` / `EVP_DigestUpdate`
/// / `EVP_DigestFinal_ex`), which uses the CPU's SHA extensions where present.
///
/// Owns one `EVP_MD_CTX`, freed in `deinit`. Not thread-safe: use one hasher per item, from one
/// thread at a time.
package final class SHA256Hasher {
  /// The owned `EVP_MD_CTX *`.
  private let context: OpaquePointer

  /// Creates a hasher ready for `update`. Traps only if OpenSSL cannot allocate a digest
  /// context or has no SHA-256, which means the process is out of memory or OpenSSL is broken.
  package init() {
    guard let context = EVP_MD_CTX_new() else {
      fatalError("EVP_MD_CTX_new failed: out of memory")
    }
    self.context = context
    Self.start(context)
  }

  deinit {
    EVP_MD_CTX_free(context)
  }

  /// Feeds bytes into the digest (`EVP_DigestUpdate`); no copy is made.
  package func update(_ buffer: UnsafeRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    // EVP_DigestUpdate on an initialised SHA-256 context cannot fail.
    _ = EVP_DigestUpdate(context, base, buffer.count)
  }

  /// Feeds bytes into the digest.
  package func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Returns the 32-byte digest of everything fed so far (`EVP_DigestFinal_ex`), then resets the
  /// hasher so it can be reused for a new message.
  package func finalize() -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    _ = EVP_DigestFinal_ex(context, &digest, &length)
    Self.start(context)
    return Array(digest.prefix(Int(length)))
  }

  /// The digest of the bytes so far, leaving the hasher as it was so more bytes can follow
  /// (`EVP_MD_CTX_copy_ex` into a scratch context, finalized there).
  package func finalizeCopy() -> [UInt8] {
    guard let copy = EVP_MD_CTX_new() else { return [] }
    defer { EVP_MD_CTX_free(copy) }
    guard EVP_MD_CTX_copy_ex(copy, context) == 1 else { return [] }
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    _ = EVP_DigestFinal_ex(copy, &digest, &length)
    return Array(digest.prefix(Int(length)))
  }

  /// The SHA-256 digest of `bytes` in one call.
  package static func hash(_ bytes: [UInt8]) -> [UInt8] {
    let hasher = SHA256Hasher()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// The SHA-256 digest of the bytes in `buffer` in one call.
  package static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
    let hasher = SHA256Hasher()
    hasher.update(buffer)
    return hasher.finalize()
  }

  /// (Re)initialises `context` for SHA-256 (`EVP_DigestInit_ex`).
  private static func start(_ context: OpaquePointer) {
    guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
      fatalError("EVP_DigestInit_ex(SHA-256) failed: OpenSSL has no SHA-256")
    }
  }
}
