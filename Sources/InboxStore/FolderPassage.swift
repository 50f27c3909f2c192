import Foundation
import System

/// Folder items crossing the Inbox's threshold under a hidden transient name, recorded durably
/// in staging so that a crash in the middle is repaired when the daemon starts.
///
/// Linux moves a folder under another parent only when the folder itself is writable (its `..`
/// entry changes), while a rename inside one folder needs no permission on what moves. A folder
/// item is read-only (0555) in the Inbox, so it crosses under a transient name
/// (`.share-<hex>.passage`) that the Inbox never lists:
/// - in: record the passage; rename the staged folder (top folder 0700) to its transient name in
///   the Inbox; seal it there (0555, synced); rename it to a free variant of its name;
/// - out (`move`, `delete`): record the passage; rename the item to its transient name; make its
///   top folder writable; move it out (or into staging, to delete it). If that fails it is
///   sealed and renamed back.
///
/// So an item under its name in the Inbox is always sealed and complete, and nothing writable
/// is ever listed. A crash leaves at worst a transient entry that a record names: `repairAll`
/// seals it and renames it to a free variant of its name. A folder that was coming in is then
/// placed (its metadata is journalled before any rename); one that was leaving stays, as if the
/// command had not run. A record is removed once none of its transient names is in the Inbox.
struct FolderPassage {
  static let suffix = ".passage"

  /// One folder crossing: its transient name in the Inbox and the name it is to have there.
  struct Crossing: Codable, Equatable {
    var transient: String
    var name: String
  }

  let url: URL
  let crossings: [Crossing]
  /// Held by the process making the crossings while it does (`<record>.lock` beside the
  /// record): a repair leaves a passage alone while someone holds it (review 27: a repair by
  /// an inbox command must never take a folder out from under a move or a placement).
  var lock: FileLock? = nil

  /// The lock file of a passage record.
  static func lockURL(of record: URL) -> URL { record.deletingPathExtension().appendingPathExtension("lock") }

  /// A fresh transient name; `isTransient` recognises its shape.
  static func transientName() -> String { ".share-\(randomHex(12))\(suffix)" }

  /// True for a name shaped like a transient one (whether a record names it is another matter:
  /// a sender may choose such a name too).
  static func isTransient(_ name: String) -> Bool {
    name.hasPrefix(".share-") && name.hasSuffix(suffix) && name.utf8.count == 7 + 24 + suffix.utf8.count
  }

  /// Records, durably (file and staging folder synced), folders about to cross, one fresh
  /// transient name for each of `names`.
  static func record(_ names: [String], in staging: URL) throws(InboxError) -> FolderPassage {
    let crossings = names.map { Crossing(transient: transientName(), name: $0) }
    let url = staging.appendingPathComponent("\(randomHex(12))\(suffix)")
    guard let data = try? JSONEncoder().encode(crossings) else { throw .unexpected("cannot encode a passage record") }
    let lock = try InboxError.attempt("flock", lockURL(of: url).path) { () throws(Errno) in try FileLock(path: lockURL(of: url).path) }
    try InboxError.attempt("write", url.path) { () throws(Errno) in
      try writeDurably(data, to: url.path, replacing: false)
    }
    return FolderPassage(url: url, crossings: crossings, lock: lock)
  }

  /// Removes the record unless one of its transient names is still in `inbox` (then the next
  /// start repairs it). Not synced: a record whose removal is lost names nothing at the next
  /// start and is removed then.
  func done(inbox: URL) {
    let pending = crossings.contains {
      (try? FileSystem.status(inbox.appendingPathComponent($0.transient).path, followSymlinks: false)) != nil
    }
    if !pending { try? FileSystem.remove(url.path) }
    if let lock {
      try? FileSystem.remove(Self.lockURL(of: url).path)
      lock.unlock()
    }
  }

  /// Every record in `staging`.
  static func all(in staging: URL) -> [FolderPassage] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.compactMap { name in
      let url = staging.appendingPathComponent(name)
      guard let data = FileManager.default.contents(atPath: url.path),
        let crossings = try? JSONDecoder().decode([Crossing].self, from: data)
      else {
        // Unreadable: written only partly, so no rename followed it.
        try? FileSystem.remove(url.path)
        return nil
      }
      return FolderPassage(url: url, crossings: crossings)
    }
  }

  /// The transient names in the Inbox that some record in `staging` names.
  static func transientNames(in staging: URL) -> Set<String> {
    Set(all(in: staging).flatMap { $0.crossings.map(\.transient) })
  }
}

extension InboxStore {
  /// Seals every folder a crash left under a transient name in the Inbox and renames it to a
  /// free variant of its name, then syncs the Inbox and removes the records. A record whose
  /// repair failed stays for the next start; one whose lock someone holds is theirs. Runs when
  /// the daemon starts and before each inbox command (a move killed mid-copy left its folder
  /// hidden until the next start: review 27). Returns how many folders were repaired.
  @discardableResult
  package func repairPassages() -> Int {
    var repaired = 0
    for var passage in FolderPassage.all(in: staging) {
      // Someone is making these crossings now: theirs to finish or undo.
      guard let lock = try? FileLock.attempt(path: FolderPassage.lockURL(of: passage.url).path) else { continue }
      passage.lock = lock
      for crossing in passage.crossings {
        let url = inbox.appendingPathComponent(crossing.transient)
        guard (try? lstatus(url)) != nil else { continue }
        do {
          try TopFolder.open(url.path).seal()
          _ = try rename(url, intoFreeNameIn: inbox, from: crossing.name)
          repaired += 1
        } catch {
          continue
        }
      }
      try? syncDirectory(inbox)
      passage.done(inbox: inbox)
    }
    return repaired
  }

  /// Renames the staged folder of `placement` into the Inbox through `transient`: in, sealed
  /// there, then renamed to a free variant of its name, which is returned. On failure it goes
  /// back to staging, so nothing is left in the Inbox.
  func enter(_ placement: Placement, via transient: String) throws(InboxError) -> String {
    let url = inbox.appendingPathComponent(transient)
    do {
      try FileSystem.renameNoReplace(placement.staged.path, to: url.path)
    } catch {
      throw InboxError.from("rename", url.path, error)
    }
    do {
      try TopFolder.open(url.path).seal()
      return try rename(url, intoFreeNameIn: inbox, from: placement.name)
    } catch {
      try? chmod(url, .ownerReadWriteExecute)
      try? FileSystem.renameNoReplace(url.path, to: placement.staged.path)
      throw error
    }
  }
}

/// A folder item's top folder, held open while its mode changes so that the folder changed is
/// the one opened, whatever its name has become.
struct TopFolder {
  let descriptor: FileDescriptor
  let path: String

  /// Opens the folder at `path` itself (never through a symbolic link).
  static func open(_ path: String) throws(InboxError) -> TopFolder {
    let descriptor = try InboxError.attempt("open", path) { () throws(Errno) in
      try FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow])
    }
    return TopFolder(descriptor: descriptor, path: path)
  }

  /// Gives it its Inbox mode (0555) durably (fchmod, fsync), and closes it.
  func seal() throws(InboxError) {
    defer { try? descriptor.close() }
    try InboxError.attempt("fchmod", path) { () throws(Errno) in
      try descriptor.setPermissions(InboxStore.folderMode)
      try descriptor.sync()
    }
  }
}
