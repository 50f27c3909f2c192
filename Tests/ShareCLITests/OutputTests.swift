import Foundation
import Testing

@testable import ShareCLI

/// What commands print: data on stdout, messages on stderr, `--json` one object per line.
@Suite struct OutputTests {
  struct Sample: Encodable {
    var deviceName: String
    var sizeInBytes: Int
  }

  @Test func aJSONLineHasSnakeCaseKeysAndNoRawControlOrBidiCharacters() throws {
    let hostile = "evil\u{1b}]52;c;AAAA\u{07}\u{202e}gnp.exe\u{85}"
    let line = JSONOutput.line(Sample(deviceName: hostile, sizeInBytes: 3))
    #expect(!line.contains("\n"))
    #expect(line.hasPrefix(#"{"device_name":"#))
    #expect(line.contains(#""size_in_bytes":3"#))
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) || $0 == "\u{202e}" })
    let decoded = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(decoded?["device_name"] as? String == hostile, "escaped, the value decodes the same")
  }

  @Test func idPrintsItsNameAndIDAndOneJSONObject() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let plain = share(["id"], environment: home.environment)
    #expect(plain.code == .success, "\(plain)")
    #expect(plain.outLines.count == 2 && plain.outLines[0].hasPrefix("Name: ") && plain.outLines[1].hasPrefix("ID:   "))
    let json = share(["id", "--json"], environment: home.environment)
    #expect(json.outLines.count == 1 && json.err.isEmpty, "\(json)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: String])
    #expect(Set(object.keys) == ["name", "id", "short_id", "certificate"])
    #expect(object["id"]?.count == 64)
  }

  @Test func anEmptyHomeSaysSoOnStderrAndPrintsNoData() {
    let home = ScratchHome()
    defer { home.remove() }
    let inbox = share(["inbox"], environment: home.environment)
    #expect(inbox.code == .success && inbox.out.isEmpty)
    #expect(inbox.err.hasPrefix("The Inbox is empty"), "\(inbox)")
    let trust = share(["trust", "--json"], environment: home.environment)
    #expect(trust.code == .success && trust.out.isEmpty && trust.err.isEmpty, "\(trust)")
  }

  @Test func aRuntimeFailureIsOneErrorLineAndExit1() {
    let home = ScratchHome()
    defer { home.remove() }
    let run = share(["trust", "remove", "laptop"], environment: home.environment)
    #expect(run.code == .failure)
    #expect(run.out.isEmpty)
    #expect(run.errLines == ["Error: no contact matches 'laptop' (see 'share trust list')"], "\(run)")
  }
}
