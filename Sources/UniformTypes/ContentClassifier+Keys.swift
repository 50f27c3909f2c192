import TextEscaping

/// Keys and certificates written as text: PEM armor and OpenSSH public keys.
extension ContentClassifier {
  /// The type of PEM-armored text (RFC 7468): certificates, certificate requests, keys.
  static func pemType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let prefix = Array("-----BEGIN ".utf8)
    guard startsWith(head, prefix) else { return nil }
    var end = prefix.count
    while end < head.count, end < 80, head[end] != UInt8(ascii: "-") { end += 1 }
    let label = String(decoding: UnsafeRawBufferPointer(rebasing: head[prefix.count..<end]), as: UTF8.self)
    let type: TypeIdentifier
    switch label {
    case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CRL", "PKCS7": type = "public.x509-certificate"
    case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST": type = "public.certificate-request"
    case _ where label.hasSuffix("PRIVATE KEY") || label.hasSuffix("PUBLIC KEY") || label.hasSuffix("PARAMETERS"):
      type = "public.private-key"
    default: return nil
    }
    return (type, "PEM \(Escaping.escaped(label, maximumLength: 40).lowercased())")
  }

  /// The type of an OpenSSH public key, as `ssh-keygen` writes it (`id_ed25519.pub`: `ssh-ed25519
  /// AAAAC3Nz… user@host`): a key type OpenSSH names (`ssh-…`, `ecdsa-sha2-…`, the security keys'
  /// `sk-…`, and their `…-cert-v01@openssh.com` certificates), one blank, then the key in base64,
  /// whose 4-byte length prefix makes it start `AAAA`.
  static func sshPublicKeyType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    var end = 0
    while end < head.count, end < 64, sshKeyTypeBytes.contains(head[end]) { end += 1 }
    guard end < head.count, head[end] == UInt8(ascii: " "),
      startsWith(UnsafeRawBufferPointer(rebasing: head[(end + 1)...]), Array("AAAA".utf8))
    else { return nil }
    let keyType = String(decoding: UnsafeRawBufferPointer(rebasing: head[0..<end]), as: UTF8.self)
    guard ["ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-sha2-"].contains(where: keyType.hasPrefix) else { return nil }
    return ("org.openssh.public-key", "OpenSSH public key (\(keyType))")
  }

  /// What OpenSSH's key type names are made of (`sk-ssh-ed25519@openssh.com`).
  private static let sshKeyTypeBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-@.".utf8)
}
