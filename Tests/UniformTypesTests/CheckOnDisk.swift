import Foundation

@testable import UniformTypes

extension TypePolicy {
  /// `check(path:sniffer:)` on `bytes` written to a fresh file called `name`, removed after.
  func check(writing bytes: [UInt8], as name: String, sniffer: ContentSniffer? = nil) throws -> CheckReport {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("share-types-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent(name)
    try Data(bytes).write(to: file)
    return try check(path: file.path, sniffer: try sniffer ?? ContentSniffer())
  }
}
