import Foundation
import Testing

@testable import UniformTypes

@Suite("libmagic content sniffer")
struct ContentSnifferTests {
  @Test("libmagic names real formats by MIME type and description")
  func sniffing() throws {
    let sniffer = try ContentSniffer()
    let png = try sniffer.sniff(SampleBytes.png)
    #expect(png.mimeType == "image/png" && png.description.hasPrefix("PNG image data"))
    let elf = try sniffer.sniff(try SampleBytes.elf())
    #expect(elf.description.hasPrefix("ELF"))
    #expect(try SampleBytes.png.withUnsafeBytes { try sniffer.mimeType(ofHead: $0) } == "image/png")
    #expect(try sniffer.sniff([]).mimeType == "application/x-empty")
  }

  @Test("a database that cannot be loaded is a typed error carrying libmagic's message")
  func badDatabase() {
    #expect {
      _ = try ContentSniffer(databasePath: "/nonexistent/magic.mgc", handles: 2)
    } throws: { error in
      guard let error = error as? ContentSnifferError else { return false }
      return error.function == "magic_load" && !error.message.isEmpty
    }
  }

  @Test("one sniffer used from many tasks at once gives every task the right answer, with one handle or several", arguments: [1, 3])
  func concurrentUse(handles: Int) async throws {
    let sniffer = try ContentSniffer(handles: handles)
    let elf = try SampleBytes.elf()
    let inputs: [([UInt8], String)] = [
      (SampleBytes.png, "image/png"), (SampleBytes.pdf, "application/pdf"), (SampleBytes.gif, "image/gif"),
      (Array(elf.prefix(4096)), "application/x-sharedlib"),
    ]
    let failures = await withTaskGroup(of: Int.self) { group in
      for task in 0..<8 {
        group.addTask {
          var failures = 0
          for round in 0..<100 {
            let (bytes, expected) = inputs[(task + round) % inputs.count]
            if (try? sniffer.sniff(bytes).mimeType) != expected { failures += 1 }
            // Giving the database's pages back meanwhile must not disturb a sniff on another handle.
            if round % 25 == 0 { sniffer.releaseDatabasePages() }
          }
          return failures
        }
      }
      return await group.reduce(0, +)
    }
    #expect(failures == 0)
  }

  @Test("the head length covers tar, OOXML parts and the ISO 9660 volume descriptor")
  func headLength() {
    #expect(ContentSniffer.headLength >= 32_769 + 6)
  }
}

@Suite("two-pass sniffing")
struct TwoPassSniffingTests {
  @Test("plain prose is text from the quick pass; text with a signature still gets the full database")
  func plainTextAndSignatures() throws {
    let sniffer = try ContentSniffer()
    func mime(_ text: String) throws -> String {
      try Array(text.utf8).withUnsafeBytes { try sniffer.mimeType(ofHead: $0) }
    }
    #expect(try mime(String(repeating: "line of ordinary text\n", count: 200)) == "text/plain")
    #expect(try mime("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n") == "application/pdf")
    #expect(try mime("{\\rtf1\\ansi hello}\n") == "text/rtf")
    #expect(try mime("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n").contains("svg"))
    #expect(try mime("#!/bin/sh\necho hi\n") == "text/x-shellscript")
    #expect(try mime("y") == "text/plain")
  }
}

@Suite("plain text without libmagic")
struct PlainTextFastPathTests {
  func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { ContentSniffer.isPlainUTF8Text($0) } }

  @Test("prose in ASCII or UTF-8 is plain text")
  func prose() {
    #expect(check(Array("Hello, world.\nSecond line\twith a tab\n".utf8)))
    #expect(check(Array("Grüße aus Köln — 日本語のテキスト\n".utf8)))
    #expect(check(Array("ends inside a character: é".utf8).dropLast()))
  }

  @Test("binary bytes, control characters, C1 controls, invalid UTF-8 and signatures are not")
  func notPlain() {
    #expect(!check([0x48, 0x69, 0x00, 0x21]))
    #expect(!check(Array("text with \u{1b}[2J escape".utf8)))
    #expect(!check(Array("text with a C1 \u{9b} control".utf8)))
    #expect(!check([0x61, 0x62, 0xFF, 0x63]))
    #expect(!check([0x61, 0xC3, 0x28, 0x63]))
    #expect(!check(Array("%PDF-1.4\n".utf8)))
    #expect(!check(Array("#!/bin/sh\n".utf8)))
    #expect(!check(Array("<?xml version='1.0'?>".utf8)))
    #expect(!check(Array("[Desktop Entry]\n".utf8)))
  }
}
