import Foundation
import Testing

@testable import ShareKit

/// `settings.json` read back: a value of the wrong kind is named by its key (review 27:
/// `"reserve_bytes": "64MiB"` said only that the data was not in the correct format).
@Suite struct SettingsFileTests {
  func loading(_ json: String) throws -> String? {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).json")
    try Data(json.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try Settings.load(from: url)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func aValueOfTheWrongKindIsNamedByItsKey() throws {
    let text = try #require(try loading(#"{"reserve_bytes": "64MiB"}"#))
    #expect(text.contains("reserve_bytes must be a whole number of bytes, 0 or more, not \"64MiB\""), "\(text)")
    let listed = try #require(try loading(#"{"reserve_bytes": [1]}"#))
    #expect(listed.contains("reserve_bytes must be a whole number of bytes"), "\(listed)")
    let broken = try #require(try loading("{"))
    #expect(broken.contains("not valid settings JSON"), "\(broken)")
    #expect(try loading(#"{"reserve_bytes": 1048576}"#) == nil)
  }

  /// Review 30: a number too large for its setting was "not valid JSON", naming no key; the
  /// others named Swift's types ("must be String", "Dictionary<String, Any>").
  @Test func aNumberTooLargeOrAValueOfAnotherKindSaysWhatTheSettingMustBe() throws {
    let port = try #require(try loading(#"{"localsend_port": 70000}"#))
    #expect(port.contains("localsend_port must be a port number, a whole number up to 65535, not 70000"), "\(port)")
    let huge = try #require(try loading(#"{"name": "x", "reserve_bytes": 1e300}"#))
    #expect(huge.contains("reserve_bytes must be a whole number of bytes"), "\(huge)")
    let name = try #require(try loading(#"{"name": 5}"#))
    #expect(name.contains("name must be text in quotes, not 5"), "\(name)")
    for notAnObject in ["[]", "null", "5"] {
      let text = try #require(try loading(notAnObject))
      #expect(text.contains("it must hold one object"), "\(text)")
      #expect(!text.contains("Dictionary"), "\(text)")
    }
  }

  /// Review 30: `localsend_pinn` was ignored, so LocalSend took senders without a PIN.
  /// Review 32: a PIN the daemon refuses passed every other command; an empty name read as if
  /// it had been typed on the command line.
  @Test func aPINTheDaemonWouldRefuseIsAnErrorForEveryCommandAndAnEmptyNameNamesTheFile() throws {
    let pin = try #require(try loading(#"{"localsend_pin": "a b"}"#))
    #expect(pin.contains(": localsend_pin may hold only letters, digits"), "\(pin)")
    #expect(try loading(#"{"localsend_pin": "4711"}"#) == nil)
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("settings-home-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let paths = SharePaths(home: home)
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    try Data(#"{"name": ""}"#.utf8).write(to: paths.settings)
    #expect {
      _ = try Device.load(paths: paths)
    } throws: { error in
      "\(error)".contains("the device name in \(paths.settings.path) (\"name\") must be 1 to 63 bytes long")
    }
  }

  @Test func aSettingShareDoesNotKnowIsAnErrorWithTheNearestItDoes() throws {
    let text = try #require(try loading(#"{"localsend": true, "localsend_pinn": "1234"}"#))
    #expect(text.contains(#""localsend_pinn" is not a setting share knows; did you mean localsend_pin?"#), "\(text)")
  }

  /// Review 30: an unreadable `settings.json` was read as no settings (no PIN, and `share name`
  /// then wrote a file without the rest); a link to it was replaced by a file.
  @Test func anUnreadableFileIsAnErrorAndALinkIsWrittenThrough() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("settings.json"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect {
      try Settings.load(from: folder.appendingPathComponent("settings.json"))
    } throws: { error in
      "\(error)".contains("cannot read \(folder.path)/settings.json")
    }
    let real = folder.appendingPathComponent("real.json")
    try Data(#"{"localsend_pin": "2468"}"#.utf8).write(to: real)
    let link = folder.appendingPathComponent("link.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
    try Settings.update(at: link) { $0.name = "lab" }
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
    let written = try Settings.load(from: real)
    #expect(written.name == "lab" && written.localsendPin == "2468")
  }
}
