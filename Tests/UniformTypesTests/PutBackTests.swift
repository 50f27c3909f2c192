import Foundation
import Testing

@testable import UniformTypes

@Suite("handles on the cut with groups put back, kept for heads of text")
struct PutBackTests {
  /// Heads of text that start as signatures do, each putting back groups of its own.
  static let texts: [String] = [
    "<?xml version=\"1.0\"?>\n<catalog>\n  <book id=\"1\">share</book>\n</catalog>\n",
    "#!/bin/sh\necho hello\nexit 0\n",
    "%!PS-Adobe-3.0\n%%Title: page\nshowpage\n",
    "{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} hello}\n",
    "[Desktop Entry]\nType=Application\nName=Hello\nExec=hello\n",
    "/* comment */\n#include <stdio.h>\nint main(void) { return 0; }\n",
    "MZ is not a program when it is text like this\n",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n",
  ]

  @Test("two heads of one kind share one kept handle, and every answer is the whole database's")
  func sameGroupsShareAHandle() throws {
    let sniffer = try ContentSniffer()
    let full = try ContentSniffer(cutFirst: false)
    let first = Self.texts[0]
    let second = first.replacingOccurrences(of: "id=\"1\">share", with: "id=\"22\">sharing")
    for text in [first, second] {
      let head = Array(text.utf8)
      #expect(try sniffer.sniff(head) == (try full.sniff(head)))
    }
    let kept = sniffer.keptPutBacks()
    #expect(kept.count == 1, "kept: \(kept)")
    // The same answers again, from the kept handle.
    #expect(try sniffer.sniff(Array(first.utf8)) == (try full.sniff(Array(first.utf8))))
    #expect(sniffer.keptPutBacks() == kept)
  }

  @Test("random bytes keep no handle; at most four are kept, the least recently used closed first")
  func capacityAndRandomBytes() throws {
    let sniffer = try ContentSniffer()
    let full = try ContentSniffer(cutFirst: false)
    for index in 0..<200 {
      let head = SampleBytes.random(count: 4096, seed: 0xB0B0_0000 + UInt64(index))
      let (answer, whole) = try head.withUnsafeBytes { (try sniffer.mimeType(ofHead: $0), try full.mimeType(ofHead: $0)) }
      #expect(answer == whole)
    }
    #expect(sniffer.keptPutBacks().isEmpty)
    var distinct: [[Int]] = []
    for text in Self.texts {
      let head = Array(text.utf8)
      #expect(try sniffer.sniff(head) == (try full.sniff(head)), "\(text)")
      if let last = sniffer.keptPutBacks().last, !distinct.contains(last) { distinct.append(last) }
    }
    #expect(distinct.count > PutBack.capacity, "only \(distinct.count) kinds put back groups")
    #expect(sniffer.keptPutBacks() == Array(distinct.suffix(PutBack.capacity)))
  }
}
