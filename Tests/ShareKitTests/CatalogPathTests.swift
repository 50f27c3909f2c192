import Foundation
import Testing

@testable import ShareKit

/// The catalog's paths are standardized without Foundation's URL (a third of the sender's CPU
/// before the first byte of 5,000 files): the same paths `URL.standardizedFileURL` gives.
@Suite struct CatalogPathTests {
  @Test(
    arguments: [
      "notes.txt", "./notes.txt", "a/./b/../c.txt", "/x/y/../../z", "/../..", "a//b///c", "trip/", "/", ".", "..", "../../up",
      "/tmp/x/.hidden", "/tmp/x/..hidden", "/tmp/x/...", "café/naïve.txt", "a b/c d", "/a/b/c/../../../..",
      "/tmp/a/", "/tmp/a/.", "/tmp/a/..", "/tmp//a", "/tmp/.a", "/tmp/a.", "/tmp/..a", "/tmp/a..", "/.", "/..", "//", "/tmp/a/./b",
    ])
  func standardizedAsFoundationDoes(path: String) {
    let directory = "/home/anna/Documents"
    let foundation = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
      .standardizedFileURL.path
    #expect(ItemCatalog.standardized(path, in: directory) == foundation, "\(path)")
    let last = foundation == "/" ? "/" : URL(fileURLWithPath: foundation).lastPathComponent
    #expect(ItemCatalog.lastComponent(of: ItemCatalog.standardized(path, in: directory)) == last, "\(path)")
  }

  /// The file system splits at the byte `/`, whatever follows it: a combining mark after a slash
  /// makes one Character of both, and the path still has two components.
  @Test func aSlashFollowedByACombiningMarkStillSeparates() {
    #expect(ItemCatalog.standardized("a/\u{301}b/../c", in: "/d") == "/d/a/c")
    #expect(ItemCatalog.lastComponent(of: "/d/a/\u{301}b") == "\u{301}b")
  }
}

/// Review 38: a note about a skipped entry with a long path was cut at the display limit, its
/// reason with it.
@Suite struct CatalogNoteTests {
  @Test func aLongPathInANoteKeepsTheReasonAfterIt() throws {
    let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-notes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let target = "/" + (0..<60).map { "folder\($0)" }.joined(separator: "/")
    try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: target)
    var catalog = ItemCatalog()
    try catalog.add(path: root.path)
    let note = try #require(catalog.notes.first)
    #expect(note.hasSuffix("(links are not followed)") && note.count < 400, "\(note)")
    #expect(ItemCatalog.shown("short/path") == "short/path")
  }
}
