import Foundation
import System

/// A persistent device identity: an Ed25519 private key and a self-signed X.509 v3 certificate,
/// stored as `key.pem` (mode 0600) and `cert.pem` (mode 0644) in one directory (mode 0700).
///
/// The device ID is `fingerprint`, the SHA-256 of the certificate's public key, so it survives
/// certificate renewal. A value type holding only PEM text and paths; `TLSContext` turns it into
/// OpenSSL objects.
package struct DeviceIdentity: Sendable {
  /// The device ID: SHA-256 of the DER SubjectPublicKeyInfo of the certificate.
  package let fingerprint: Fingerprint
  /// The certificate, PEM-encoded.
  package let certificatePEM: String
  /// Where the private key is stored.
  package let keyURL: URL
  /// Where the certificate is stored.
  package let certificateURL: URL
  /// The certificate's subject CN: the device name, cut to 64 characters.
  package let commonName: String
  /// The private key, PKCS#8 PEM. Kept in memory so contexts need not re-read the file.
  let privateKeyPEM: [UInt8]

  /// The key file name inside the identity directory.
  package static let keyFileName = "key.pem"
  /// The certificate file name inside the identity directory.
  package static let certificateFileName = "cert.pem"

  /// Loads the identity in `directory`, creating what is missing.
  ///
  /// - The directory (and missing parents) is created with mode 0700.
  /// - No `key.pem`: a new Ed25519 key is generated and written atomically (temporary file,
  ///   `fsync`, then a rename that never replaces, so two processes racing to create it agree on
  ///   one key).
  /// - `key.pem` with any group/other permission bit: refused with `.insecureKeyPermissions`,
  ///   like ssh. An unreadable, corrupt, encrypted or non-Ed25519 key: `.identity(path, detail)`;
  ///   the file is never overwritten.
  /// - `cert.pem` missing, corrupt, for another key, with another CN than `commonName`, or within
  ///   30 days of expiry: a new certificate is issued from the key and written atomically. The
  ///   fingerprint is unchanged because the key is.
  ///
  /// Blocks on file I/O; call from any thread.
  package static func loadOrCreate(in directory: URL, commonName: String) throws(TLSError)
    -> DeviceIdentity
  {
    let directoryPath = directory.path
    let keyURL = directory.appendingPathComponent(keyFileName)
    let certificateURL = directory.appendingPathComponent(certificateFileName)
    let keyPath = keyURL.path
    let certificatePath = certificateURL.path
    let name = Certificate.commonName(fitting: commonName)

    try IdentityFile.makeDirectory(directoryPath)

    let key = try loadOrCreateKey(at: keyPath)

    var certificate: Certificate? = nil
    if let existing = try IdentityFile.read(certificatePath),
      let parsed = Certificate.parse(pem: existing.bytes),
      parsed.matches(key), parsed.commonName == name, parsed.isValid(forAnotherDays: 30)
    {
      certificate = parsed
    }
    let certificatePEM: [UInt8]
    if let certificate {
      certificatePEM = try certificate.pem()
    } else {
      let fresh = try Certificate.selfSigned(key: key, commonName: name)
      certificatePEM = try fresh.pem()
      try IdentityFile.write(
        certificatePEM, to: certificatePath, permissions: FilePermissions(rawValue: 0o644),
        replace: true)
      certificate = fresh
    }
    guard let certificate, let fingerprint = certificate.fingerprint else {
      throw .certificate(detail: "i2d_X509_PUBKEY: cannot encode the certificate's public key")
    }
    return DeviceIdentity(
      fingerprint: fingerprint,
      certificatePEM: String(decoding: certificatePEM, as: UTF8.self),
      keyURL: keyURL, certificateURL: certificateURL, commonName: name,
      privateKeyPEM: try key.pem())
  }

  /// A throwaway identity held in memory only, nothing written: for looking at the network
  /// from a home that has no identity yet (`share peers`), never for being known by.
  package static func ephemeral(commonName: String) throws(TLSError) -> DeviceIdentity {
    let key = try PrivateKey.generateEd25519()
    let name = Certificate.commonName(fitting: commonName)
    let certificate = try Certificate.selfSigned(key: key, commonName: name)
    guard let fingerprint = certificate.fingerprint else {
      throw .certificate(detail: "i2d_X509_PUBKEY: cannot encode the certificate's public key")
    }
    let nowhere = URL(fileURLWithPath: "/dev/null")
    return DeviceIdentity(
      fingerprint: fingerprint, certificatePEM: String(decoding: try certificate.pem(), as: UTF8.self), keyURL: nowhere,
      certificateURL: nowhere, commonName: name, privateKeyPEM: try key.pem())
  }

  /// Reads and checks the key at `path`, or creates it if absent.
  private static func loadOrCreateKey(at path: String) throws(TLSError) -> PrivateKey {
    // Two attempts: if another process creates the key between our read and our link, the
    // second read finds its key.
    for _ in 0..<2 {
      if let contents = try IdentityFile.read(path) {
        guard contents.permissions.isDisjoint(with: .groupOrOthers) else {
          throw .insecureKeyPermissions(path: path, mode: contents.permissions.rawValue)
        }
        return try PrivateKey.parse(pem: contents.bytes, path: path)
      }
      let key = try PrivateKey.generateEd25519()
      if try IdentityFile.write(key.pem(), to: path, permissions: .ownerReadWrite, replace: false) {
        return key
      }
    }
    throw .identity(path: path, detail: "the key file appeared and vanished while being created")
  }
}
