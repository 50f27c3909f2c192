import Testing

@testable import UniformTypes

/// Review 18, finding 9: a `#!` line before binary data (a Python zipapp) was accepted as data.
@Suite("A #! line before binary data")
struct ShebangBeforeBinaryTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: Int64(bytes.count), sniffer: try Self.sniffer.get())
  }

  @Test("a #! line with an interpreter path makes a script whatever follows it: a Python zipapp named .zip is refused")
  func zipappIsAScript() throws {
    // As python3 -m zipapp writes one: the interpreter line, then the ZIP.
    let zipapp = Array("#!/usr/bin/env python3\n".utf8) + SampleBytes.zip([("__main__.py", Array("import os\n".utf8))])
    for name in ["app.zip", "app.pyz", "app"] {
      let verdict = try judge(name, zipapp)
      #expect(!verdict.accepted && verdict.decidedBy == "public.script", "\(name): \(verdict.reason)")
    }
    let withNUL = Array("#! /bin/sh\nexit 0\n".utf8) + [0, 1, 2, 0xFF]
    #expect(!(try judge("payload.bin", withNUL)).accepted)
  }

  @Test("#! followed by a word is another format's signature: AMR audio stays audio")
  func signaturesStayWhatTheyAre() throws {
    let amr = Array("#!AMR\n".utf8) + [0x3C] + [UInt8](repeating: 0x55, count: 31)
    let verdict = try judge("voice.amr", amr)
    #expect(verdict.accepted, "\(verdict.reason)")
  }
}
