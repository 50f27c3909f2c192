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
    #expect(text.contains("reserve_bytes must be a whole number (bytes)"), "\(text)")
    let listed = try #require(try loading(#"{"reserve_bytes": [1]}"#))
    #expect(listed.contains("reserve_bytes must be a whole number (bytes)"), "\(listed)")
    let broken = try #require(try loading("{"))
    #expect(broken.contains("not valid settings JSON"), "\(broken)")
    #expect(try loading(#"{"reserve_bytes": 1048576}"#) == nil)
  }
}
