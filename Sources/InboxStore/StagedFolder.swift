import Foundation
import System

/// A folder item being received in staging: its tree is built here from sanitized relative
/// paths, then sealed read-only and placed in the Inbox whole.
///
/// Thread-confined to the receiving thread.
package final class StagedFolder {
  package let url: URL

  init(url: URL) { self.url = url }

  /// Creates a sub-folder (and any missing parents) from sanitized path components.
  package func makeFolder(_ components: [String]) throws(InboxError) {
    try Self.requirePlainNames(components)
    var current = url
    for component in components {
      current.appendPathComponent(component, isDirectory: true)
      do {
        try FileSystem.makeDirectory(current.path, permissions: .ownerReadWriteExecute)
      } catch .fileExists {
        continue
      } catch {
        throw InboxError.from("mkdir", current.path, error)
      }
    }
  }

  /// Creates a new file at sanitized path components, never following a symlink and never
  /// replacing an existing file.
  package func createFile(_ components: [String]) throws(InboxError) -> StagingFile {
    guard !components.isEmpty else { throw InboxError.unexpected("an entry has an empty path") }
    try Self.requirePlainNames(components)
    try makeFolder(Array(components.dropLast()))
    let file = components.reduce(url) { $0.appendingPathComponent($1, isDirectory: false) }
    let descriptor = try InboxError.attempt("open", file.path) { () throws(Errno) in
      try FileDescriptor.open(
        file.path, .writeOnly, options: [.create, .exclusiveCreate, .noFollow], permissions: .ownerReadWrite)
    }
    return StagingFile(url: file, file: descriptor)
  }

  /// Refuses a component that would lead out of the folder or nowhere (empty, `.`, `..`, holding
  /// `/` or NUL), whatever produced it: here components become a path, so here a sanitiser's bug
  /// (fuzz finding F2) stops.
  static func requirePlainNames(_ components: [String]) throws(InboxError) {
    for component in components where !InboxStore.isPlainName(component) {
      throw InboxError.unexpected("a folder entry's path has a component that is not a plain name (empty, ., .., or holding / or NUL)")
    }
  }

  /// Removes the folder and everything in it.
  package func discard() { try? removeTree(url) }
}

extension InboxStore {
  /// A new, empty staging folder to build a folder item in.
  package func createStagedFolder() throws(InboxError) -> StagedFolder {
    StagedFolder(url: try createStagingFolder())
  }
}

extension InboxName {
  /// Splits a folder entry's relative path (components joined by `/`) and sanitizes each
  /// component; refuses absolute paths, empty components, `.` and `..`.
  package static func sanitize(relativePath path: String) throws(Problem) -> [String] {
    // On scalars, not Characters: `/` followed by a combining mark is one Character (fuzz
    // finding F4), and a split on Characters would leave it inside a component.
    if path.unicodeScalars.first == "/" { throw .pathSeparator }
    let parts = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
    guard !parts.isEmpty else { throw .empty }
    var components: [String] = []
    for part in parts {
      components.append(try sanitize(String(Substring(part))))
    }
    return components
  }
}
