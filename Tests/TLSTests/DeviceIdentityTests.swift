import Foundation
import Glibc
import TLS
import Testing

@Suite struct DeviceIdentityTests {
  func mode(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require(attributes[.posixPermissions] as? Int)
  }

  @Test func createdOnceAndStableAcrossLoads() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let directory = temp.url.appendingPathComponent("a/b/identity")
    let first = try DeviceIdentity.loadOrCreate(in: directory, commonName: "laptop")
    let second = try DeviceIdentity.loadOrCreate(in: directory, commonName: "laptop")
    #expect(first.fingerprint == second.fingerprint)
    #expect(first.certificatePEM == second.certificatePEM)
    #expect(first.commonName == "laptop")
    #expect(first.keyURL.lastPathComponent == "key.pem")
    #expect(first.certificateURL.lastPathComponent == "cert.pem")
    #expect(first.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
    let other = try DeviceIdentity.loadOrCreate(
      in: temp.url.appendingPathComponent("other"), commonName: "laptop")
    #expect(other.fingerprint != first.fingerprint)
  }

  @Test func keyIsOwnerOnlyAndDirectoryIsPrivate() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let directory = temp.url.appendingPathComponent("identity")
    let identity = try DeviceIdentity.loadOrCreate(in: directory, commonName: "laptop")
    #expect(try mode(of: identity.keyURL) == 0o600)
    #expect(try mode(of: directory) == 0o700)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(leftovers.sorted() == ["cert.pem", "key.pem"])
  }

  @Test func keyReadableByOthersIsRefused() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let identity = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    #expect(chmod(identity.keyURL.path, 0o644) == 0)
    let error = try #require(
      thrownError { () throws(TLSError) in
        try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
      })
    guard case .insecureKeyPermissions(let path, let mode) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(path == identity.keyURL.path)
    #expect(mode == 0o644)
    #expect(error.description.contains("chmod 600"))
  }

  @Test func corruptKeyIsAClearErrorAndIsNotOverwritten() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let keyURL = temp.url.appendingPathComponent("key.pem")
    let garbage = Data(
      "-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----\n".utf8)
    try garbage.write(to: keyURL)
    #expect(chmod(keyURL.path, 0o600) == 0)
    let error = try #require(
      thrownError { () throws(TLSError) in
        try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
      })
    guard case .identity(let path, let detail) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(path == keyURL.path)
    #expect(detail.contains("PEM_read_bio_PrivateKey"))
    #expect(error.description.contains(keyURL.path))
    #expect(try Data(contentsOf: keyURL) == garbage)
  }

  /// Review 23: a home under a regular file (or on a read-only disk) was "a damaged identity
  /// file" to move aside, though there was none.
  @Test func aFolderThatCannotBeMadeIsNotADamagedIdentity() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let file = temp.url.appendingPathComponent("afile")
    try Data("x".utf8).write(to: file)
    let error = try #require(
      thrownError { () throws(TLSError) in
        try DeviceIdentity.loadOrCreate(in: file.appendingPathComponent("identity"), commonName: "laptop")
      })
    guard case .identityNotSaved(let path, let detail) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(path.hasSuffix("afile/identity"))
    #expect(detail.contains("Not a directory"))
    #expect(!error.description.contains("move it aside"))
  }

  @Test func nonEd25519KeyIsRefused() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let keyPath = temp.url.appendingPathComponent("key.pem").path
    let result = try run(
      "/usr/bin/openssl",
      ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
    #expect(result.status == 0)
    #expect(chmod(keyPath, 0o600) == 0)
    #expect(throws: TLSError.self) {
      try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    }
  }

  @Test func missingOrCorruptCertificateIsReissuedWithTheSameFingerprint() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let original = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    try FileManager.default.removeItem(at: original.certificateURL)
    let reissued = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    #expect(reissued.fingerprint == original.fingerprint)
    #expect(reissued.certificatePEM != original.certificatePEM)  // new serial
    #expect(FileManager.default.fileExists(atPath: reissued.certificateURL.path))

    try Data("garbage".utf8).write(to: original.certificateURL)
    let repaired = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    #expect(repaired.fingerprint == original.fingerprint)
    #expect(
      try String(contentsOf: repaired.certificateURL, encoding: .utf8) == repaired.certificatePEM)
  }

  @Test func renamedDeviceGetsANewCertificateButKeepsItsID() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let original = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    let renamed = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "Ünïcode desk")
    #expect(renamed.commonName == "Ünïcode desk")
    #expect(renamed.fingerprint == original.fingerprint)
    #expect(renamed.certificatePEM != original.certificatePEM)
  }

  @Test func overlongDeviceNameIsCutToSixtyFourCharacters() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let identity = try DeviceIdentity.loadOrCreate(
      in: temp.url, commonName: String(repeating: "é", count: 100))
    #expect(identity.commonName == String(repeating: "é", count: 64))
  }

  @Test func emptyDeviceNameIsRefused() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    #expect(throws: TLSError.self) {
      try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "")
    }
  }

  @Test func fingerprintEqualsOpenSSLCommandLineDigestOfThePublicKey() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let identity = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    let pipeline =
      "openssl x509 -in '\(identity.certificateURL.path)' -pubkey -noout"
      + " | openssl pkey -pubin -outform DER | sha256sum"
    let result = try run("/bin/bash", ["-o", "pipefail", "-c", pipeline])
    #expect(result.status == 0, "\(result.stderr)")
    let digest = String(decoding: result.stdout, as: UTF8.self).prefix(64)
    #expect(digest == identity.fingerprint.hex)
  }

  @Test func certificateIsSelfSignedV3Ed25519WithCAFalse() throws {
    let temp = try TemporaryDirectory()
    defer { temp.remove() }
    let identity = try DeviceIdentity.loadOrCreate(in: temp.url, commonName: "laptop")
    let result = try run(
      "/usr/bin/openssl", ["x509", "-in", identity.certificateURL.path, "-noout", "-text"])
    #expect(result.status == 0)
    let text = String(decoding: result.stdout, as: UTF8.self)
    #expect(text.contains("Version: 3"))
    #expect(text.contains("Signature Algorithm: ED25519"))
    #expect(text.contains("Subject: CN = laptop"))
    #expect(text.contains("Issuer: CN = laptop"))
    #expect(text.contains("CA:FALSE"))
    let verify = try run(
      "/usr/bin/openssl",
      ["verify", "-CAfile", identity.certificateURL.path, identity.certificateURL.path])
    #expect(verify.status == 0, "\(verify.stderr)")
    // Valid for 20 years: still valid in 19 years, not in 21.
    let inNineteen = try run(
      "/usr/bin/openssl",
      ["x509", "-in", identity.certificateURL.path, "-noout", "-checkend", "\(19 * 365 * 86_400)"])
    #expect(inNineteen.status == 0)
    let inTwentyOne = try run(
      "/usr/bin/openssl",
      ["x509", "-in", identity.certificateURL.path, "-noout", "-checkend", "\(21 * 365 * 86_400)"])
    #expect(inTwentyOne.status != 0)
  }
}
