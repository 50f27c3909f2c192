import Foundation
import Testing

@testable import UniformTypes

/// Review 18, finding 9: Arch packages before zstd, and Void packages.
@Suite("Installers under the names and forms the rules missed")
struct PackageTarTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  /// One ustar header and its data, padded to 512 bytes, as tar(1) writes them.
  static func tarEntry(_ name: String, _ data: [UInt8]) -> [UInt8] {
    func field(_ text: String, _ length: Int) -> [UInt8] {
      Array(text.utf8) + [UInt8](repeating: 0, count: length - text.utf8.count)
    }
    var header =
      field(name, 100) + field("0000644", 8) + field("0000000", 8) + field("0000000", 8)
      + field(String(repeating: "0", count: 11 - String(data.count, radix: 8).count) + String(data.count, radix: 8), 12)
      + field("00000000000", 12) + [UInt8](repeating: 0x20, count: 8) + [UInt8(ascii: "0")] + field("", 100)
      + Array("ustar\0".utf8) + Array("00".utf8)
    header += [UInt8](repeating: 0, count: 512 - header.count)
    let sum = String(header.reduce(0) { $0 + Int($1) }, radix: 8)
    header.replaceSubrange(148..<156, with: field(String(repeating: "0", count: 6 - sum.count) + sum, 7) + [0x20])
    return header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
  }

  static func tar(_ entries: [(String, [UInt8])]) -> [UInt8] {
    entries.flatMap { tarEntry($0.0, $0.1) } + [UInt8](repeating: 0, count: 1024)
  }

  static let package = tar([
    (".PKGINFO", Array("pkgname = evil\npkgver = 1-1\n".utf8)), (".INSTALL", Array("post_install() { id; }\n".utf8)),
    ("usr/bin/evil", [0x7F, 0x45, 0x4C, 0x46]),
  ])

  /// The same three entries, written by Python's tarfile and compressed by its gzip module.
  static let gzippedPackage = Array(
    Data(
      base64Encoded: [
        "H4sIAAAAAAACA+3VPQ/BQByA8Zt9ihsZ6L9VOojBgIgGCbtUNNKokhaLiK/udJHUrILnt9zLcsklz11jNh6OJoOpeiMx2q6bj0Zx",
        "FGm6z3m+74krSosqwSk7Bqk5Uv2nw3aTBLtQd3V4juKKWZ7D1Kzsul1R+HmN0WS+6Pn+R/t3vJf+W036L6X/fXZcRom5hDiu1vRF",
        "R+uOvpL+vzhlqbWKEuvx+n+sfyn8/7Y44tB/GW59f0AFAAAAAAAAAAAAAPD97kHYM7AAKAAA",
      ].joined()) ?? Data())

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: Int64(bytes.count), sniffer: try Self.sniffer.get())
  }

  @Test(
    "Arch packages in every compression pacman installs, and Void packages, are refused by name",
    arguments: [
      "evil-1-1-x86_64.pkg.tar.xz", "evil-1-1-x86_64.pkg.tar.gz", "evil-1-1-x86_64.pkg.tar", "evil-1-1-any.pkg.tar.bz2",
      "evil-1-1-x86_64.pkg.tar.zst", "evil-1.0_1.x86_64.xbps",
    ])
  func refusedByName(name: String) throws {
    let verdict = try Self.policy.get().judge(name: name, kind: .file)
    #expect(!verdict.accepted && verdict.decidedBy == "public.installer-package", "\(verdict.reason)")
  }

  @Test("a tar or gzip-compressed tar holding .PKGINFO is an installer under any name; other tars stay archives")
  func refusedByContent() throws {
    #expect(Self.gzippedPackage.count == 204)
    for (name, bytes) in [("backup.tar", Self.package), ("photos.tar.gz", Self.gzippedPackage), ("data", Self.package)] {
      let verdict = try judge(name, bytes)
      #expect(!verdict.accepted && verdict.decidedBy == "public.installer-package", "\(name): \(verdict.reason)")
    }
    let plain = Self.tar([("notes/PKGINFO.txt", Array("not a package\n".utf8)), ("notes/a.txt", [0x61])])
    let verdict = try judge("notes.tar", plain)
    #expect(verdict.accepted, "\(verdict.reason)")
  }
}
