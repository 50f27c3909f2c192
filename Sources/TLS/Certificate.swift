import COpenSSL

/// An X.509 certificate; owns one `X509 *` (one reference), freed in `deinit`.
final class Certificate {
  /// The owned `X509 *`.
  let pointer: OpaquePointer

  /// Takes ownership of one reference to `pointer`.
  init(owning pointer: OpaquePointer) {
    self.pointer = pointer
  }

  deinit {
    X509_free(pointer)
  }

  /// The longest common name X.509 allows (`ub_common_name`), in characters.
  static let maximumCommonNameLength = 64

  /// `name` cut to what a certificate's CN can hold (64 Unicode scalars).
  static func commonName(fitting name: String) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: name.unicodeScalars.prefix(maximumCommonNameLength))
    return String(scalars)
  }

  /// Builds and signs a self-signed X.509 v3 certificate for `key`: subject and issuer
  /// CN = `commonName` (at most 64 characters), a random positive 128-bit serial, valid from one
  /// day ago for 20 years, `basicConstraints` critical CA:FALSE, `keyUsage` digitalSignature and
  /// `extendedKeyUsage` serverAuth + clientAuth. Signed with `X509_sign` (Ed25519: no digest).
  static func selfSigned(key: PrivateKey, commonName: String) throws(TLSError) -> Certificate {
    OpenSSLErrorQueue.clear()
    guard !commonName.isEmpty else {
      throw .certificate(detail: "the device name (certificate common name) is empty")
    }
    guard let x509 = X509_new() else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("X509_new"))
    }
    let certificate = Certificate(owning: x509)
    func check(_ ok: Bool, _ operation: String) throws(TLSError) {
      if !ok { throw .certificate(detail: OpenSSLErrorQueue.drainDetail(operation)) }
    }
    try check(X509_set_version(x509, 2) == 1, "X509_set_version(v3)")

    var serialBytes = [UInt8](repeating: 0, count: 16)
    try check(RAND_bytes(&serialBytes, 16) == 1, "RAND_bytes(serial)")
    serialBytes[0] &= 0x7f  // positive, as RFC 5280 requires
    serialBytes[0] |= 0x01  // and never all zero
    guard let serial = BN_bin2bn(serialBytes, 16, nil) else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("BN_bin2bn(serial)"))
    }
    defer { BN_free(serial) }
    try check(BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil, "BN_to_ASN1_INTEGER")

    try check(
      X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil, "X509_gmtime_adj(notBefore)")
    try check(
      X509_time_adj_ex(X509_getm_notAfter(x509), 20 * 365 + 5, 0, nil) != nil,
      "X509_time_adj_ex(notAfter)")

    guard let name = X509_get_subject_name(x509) else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("X509_get_subject_name"))
    }
    let cn = Array(Self.commonName(fitting: commonName).utf8)
    try check(
      X509_NAME_add_entry_by_txt(name, "CN", shim_MBSTRING_UTF8(), cn, Int32(cn.count), -1, 0) == 1,
      "X509_NAME_add_entry_by_txt(CN)")
    try check(X509_set_issuer_name(x509, name) == 1, "X509_set_issuer_name")
    try check(X509_set_pubkey(x509, key.pointer) == 1, "X509_set_pubkey")

    var context = X509V3_CTX()
    X509V3_set_ctx(&context, x509, x509, nil, nil, 0)
    for (nid, value) in [
      (NID_basic_constraints, "critical,CA:FALSE"),
      (NID_key_usage, "critical,digitalSignature"),
      (NID_ext_key_usage, "serverAuth,clientAuth"),
    ] {
      guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
        throw .certificate(detail: OpenSSLErrorQueue.drainDetail("X509V3_EXT_nconf_nid(\(value))"))
      }
      defer { X509_EXTENSION_free(ext) }
      try check(X509_add_ext(x509, ext, -1) == 1, "X509_add_ext(\(value))")
    }
    try check(X509_sign(x509, key.pointer, nil) > 0, "X509_sign")
    return certificate
  }

  /// Parses the first PEM certificate in `pem` (`PEM_read_bio_X509`); nil if there is none.
  static func parse(pem: [UInt8]) -> Certificate? {
    OpenSSLErrorQueue.clear()
    let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else {
        return nil
      }
      defer { BIO_free(bio) }
      return PEM_read_bio_X509(bio, nil, nil, nil)
    }
    OpenSSLErrorQueue.clear()
    return parsed.map(Certificate.init(owning:))
  }

  /// The certificate as PEM (`PEM_write_bio_X509`).
  func pem() throws(TLSError) -> [UInt8] {
    OpenSSLErrorQueue.clear()
    guard let bio = BIO_new(BIO_s_mem()) else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("BIO_new"))
    }
    defer { BIO_free(bio) }
    guard PEM_write_bio_X509(bio, pointer) == 1 else {
      throw .certificate(detail: OpenSSLErrorQueue.drainDetail("PEM_write_bio_X509"))
    }
    return memoryBIOContents(bio)
  }

  /// The SHA-256 of the DER SubjectPublicKeyInfo, i.e. the device ID.
  var fingerprint: Fingerprint? {
    Self.fingerprint(of: pointer)
  }

  /// The SHA-256 of the DER SubjectPublicKeyInfo of a borrowed `X509 *`
  /// (`X509_get_X509_PUBKEY` + `i2d_X509_PUBKEY`); nil if it cannot be encoded.
  static func fingerprint(of x509: OpaquePointer) -> Fingerprint? {
    guard let publicKey = X509_get_X509_PUBKEY(x509) else { return nil }
    let length = i2d_X509_PUBKEY(publicKey, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor = buffer.baseAddress
      return i2d_X509_PUBKEY(publicKey, &cursor)
    }
    guard written == length else { return nil }
    return Fingerprint(bytes: SHA256Hasher.hash(der))
  }

  /// The subject's first common name, decoded to UTF-8; nil if it has none.
  var commonName: String? {
    Self.commonName(of: pointer)
  }

  /// The subject CN of a borrowed `X509 *` (`X509_NAME_get_index_by_NID` + `ASN1_STRING_to_UTF8`).
  static func commonName(of x509: OpaquePointer) -> String? {
    guard let name = X509_get_subject_name(x509) else { return nil }
    let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
    guard index >= 0, let entry = X509_NAME_get_entry(name, index),
      let data = X509_NAME_ENTRY_get_data(entry)
    else { return nil }
    var utf8: UnsafeMutablePointer<UInt8>? = nil
    let length = ASN1_STRING_to_UTF8(&utf8, data)
    guard length >= 0, let utf8 else {
      OpenSSLErrorQueue.clear()
      return nil
    }
    defer { shim_OPENSSL_free(utf8) }
    return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
  }

  /// Whether this certificate carries `key`'s public key (`X509_check_private_key`).
  func matches(_ key: PrivateKey) -> Bool {
    OpenSSLErrorQueue.clear()
    let result = X509_check_private_key(pointer, key.pointer) == 1
    OpenSSLErrorQueue.clear()
    return result
  }

  /// Whether the validity period has not ended (`X509_cmp_current_time` on notAfter), with a
  /// margin of `days` so a nearly expired certificate is renewed early.
  func isValid(forAnotherDays days: Int) -> Bool {
    guard let notAfter = X509_get0_notAfter(pointer) else { return false }
    var dayDiff: Int32 = 0
    var secDiff: Int32 = 0
    // ASN1_TIME_diff(from: now (nil), to: notAfter).
    guard ASN1_TIME_diff(&dayDiff, &secDiff, nil, notAfter) == 1 else { return false }
    return Int(dayDiff) > days || (Int(dayDiff) == days && secDiff > 0)
  }
}
