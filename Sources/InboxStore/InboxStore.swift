import Foundation
import Synchronization
import System
import TextEscaping
import UniformTypes

/// The receiver's `Documents/Inbox` and the staging area beside it.
///
/// Bytes are written to staging (`Documents/.share/staging`, same file system, outside the
/// Inbox), made read-only and synced, and only then renamed into the Inbox with a rename that
/// never replaces an existing name; the Inbox directory is synced after. Nothing partial ever
/// appears in the Inbox. Immutable paths only, so any thread may use it; the file system
/// arbitrates concurrent placements (RENAME_NOREPLACE).
package final class InboxStore: Sendable {
  /// Mode of a file in the Inbox: readable, with no write bit.
  static let fileMode = FilePermissions(rawValue: 0o444)
  /// Mode of a folder inside an Inbox item.
  static let folderMode = FilePermissions(rawValue: 0o555)

  /// `<home>/Documents`, where `move` puts items by default.
  package let documents: URL
  /// `<home>/Documents/Inbox`.
  package let inbox: URL
  /// Partial and resumable transfers.
  package let staging: URL
  /// The metadata journal.
  package let metadataDirectory: URL

  var journal: MetadataJournal { MetadataJournal(directory: metadataDirectory) }

  /// The staging folder, open for the store's life. syncfs(2) reports a write-back error to
  /// each open file description once, and only errors that happened after it was opened: a
  /// descriptor opened for each sync would miss an error another process's sync had seen first
  /// (and that data would be lost while its items were told stored).
  private let stagingFolder: FileDescriptor
  /// `staging`'s path: each item's staging path is made from it as a string (Foundation's URL
  /// appending was 26 K instructions an item).
  private let stagingPath: String
  /// How many syncs of staging failed so far (read without waiting for a sync in progress).
  private let failedSyncCount = Atomic<Int>(0)
  /// The last failed sync's error; held while a sync runs, so that syncs of staging happen one
  /// at a time and a sync's outcome and the count change together (two sessions' syncs ending on
  /// the same write-back: the one that did not see the error must see the count it left).
  private let syncing = Mutex<InboxError?>(nil)

  /// Opens the store under `documents`, creating the folders (owner-only) if needed.
  package init(documents: URL) throws(InboxError) {
    self.documents = documents
    inbox = documents.appendingPathComponent("Inbox")
    let state = documents.appendingPathComponent(".share")
    staging = state.appendingPathComponent("staging")
    metadataDirectory = state.appendingPathComponent("meta")
    for dir in [documents, inbox, state, staging, metadataDirectory] {
      let mode: FilePermissions = dir == documents ? FilePermissions(rawValue: 0o755) : .ownerReadWriteExecute
      try InboxError.attempt("mkdir", dir.path) { () throws(Errno) in
        try FileSystem.makeDirectories(dir.path, permissions: mode, parentPermissions: FilePermissions(rawValue: 0o755))
      }
    }
    let stagingPath = staging.path
    self.stagingPath = stagingPath
    stagingFolder = try InboxError.attempt("open", stagingPath) { () throws(Errno) in
      try FileDescriptor.open(stagingPath, .readOnly, options: .directory)
    }
  }

  deinit { try? stagingFolder.close() }

  // MARK: Receiving

  /// A new, empty staging file, owner-only until it is finished.
  package func createStagingFile() throws(InboxError) -> StagingFile {
    // Every per-item URL here says whether it names a folder: Foundation's
    // `appendingPathComponent(_:)` without it lstat()s the path to find out, once per item.
    let path = stagingPath + "/" + randomHex(12) + ".part"
    let url = URL(fileURLWithPath: path, isDirectory: false)
    let file = try InboxError.attempt("open", path) { () throws(Errno) in
      try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
    }
    return StagingFile(url: url, file: file)
  }

  /// A new, empty staging folder to build a folder item in.
  package func createStagingFolder() throws(InboxError) -> URL {
    let url = staging.appendingPathComponent("\(randomHex(12)).dir", isDirectory: true)
    try InboxError.attempt("mkdir", url.path) { () throws(Errno) in
      try FileSystem.makeDirectory(url.path, permissions: .ownerReadWriteExecute)
    }
    return url
  }

  /// How many syncs of staging have failed so far: a batch of items notes it before its first
  /// item is staged and gives it to `syncStaging(stagedSince:)`.
  package var failedStagingSyncs: Int { failedSyncCount.load(ordering: .acquiring) }

  /// Flushes everything staged to disk with one syncfs(2): how a batch of many small files is
  /// made durable without a sync per file. `failuresBefore` is `failedStagingSyncs` from before
  /// the batch's first item was staged: a sync that failed since (this store's, for another
  /// batch or session) reported the write-back error once, and this batch's data may have been
  /// lost in it too, so the batch fails with that error.
  package func syncStaging(stagedSince failuresBefore: Int) throws(InboxError) {
    let stagingFolder = self.stagingFolder
    let path = staging.path
    try syncing.withLock { (last: inout InboxError?) throws(InboxError) in
      do throws(Errno) {
        try FileSystem.syncFileSystem(of: stagingFolder)
      } catch {
        let failure = InboxError.from("syncfs", path, error)
        last = failure
        self.failedSyncCount.add(1, ordering: .releasing)
        throw failure
      }
      if self.failedSyncCount.load(ordering: .acquiring) != failuresBefore, let last { throw last }
    }
  }

  /// Makes a staged folder tree read-only (inner folders 0555, files already 0444) except its
  /// top folder, which must stay writable to move into the Inbox: `place` seals it on the way
  /// (see `FolderPassage`). Returns the identity of the top folder.
  package func seal(folder url: URL) throws(InboxError) -> FileIdentity {
    try setModes(under: url, file: InboxStore.fileMode, folder: InboxStore.folderMode)
    try chmod(url, .ownerReadWriteExecute)
    return FileIdentity(try lstatus(url))
  }

  /// Removes a staged item that will not be placed (a read-only folder tree included).
  package func discardStaged(_ url: URL) {
    try? removeTree(url)
  }

  /// An item ready to enter the Inbox: finished, read-only and synced in staging.
  package struct Placement: Sendable {
    package var staged: URL
    /// The sanitized name to place it under (a collision adds `-1`, `-2`, ...).
    package var name: String
    package var identity: FileIdentity
    package var metadata: ItemMetadata

    package init(staged: URL, name: String, identity: FileIdentity, metadata: ItemMetadata) {
      self.staged = staged
      self.name = name
      self.identity = identity
      self.metadata = metadata
    }
  }

  /// Places a batch of staged items into the Inbox: their metadata is journalled and synced,
  /// each is renamed in under a free name (a folder through a transient name, sealed on the way:
  /// see `FolderPassage`), then the Inbox directory is synced once. Returns, per placement, the
  /// name it was stored under or why it was not.
  package func place(_ batch: [Placement]) -> [Result<String, InboxError>] {
    guard !batch.isEmpty else { return [] }
    let folders = batch.filter { $0.metadata.kind == .folder }.map(\.name)
    let passage: FolderPassage?
    do {
      // The Inbox folder may have been removed while the daemon ran (review 38: every item after
      // failed, "rename failed"): made again, owner-only, as at the start.
      try InboxError.attempt("mkdir", inbox.path) { () throws(Errno) in
        try FileSystem.makeDirectories(inbox.path, permissions: .ownerReadWriteExecute, parentPermissions: FilePermissions(rawValue: 0o755))
      }
      try journal.append(batch.map { MetadataRecord(file: $0.identity, meta: $0.metadata) })
      passage = folders.isEmpty ? nil : try FolderPassage.record(folders, in: staging)
    } catch {
      return batch.map { _ in .failure(error) }
    }
    var crossings = passage?.crossings[...] ?? []
    var results: [Result<String, InboxError>] = []
    for placement in batch {
      if placement.metadata.kind == .folder, let crossing = crossings.popFirst() {
        results.append(Result { () throws(InboxError) in try enter(placement, via: crossing.transient) })
      } else {
        results.append(Result { () throws(InboxError) in try rename(placement.staged, intoFreeNameIn: inbox, from: placement.name) })
      }
    }
    defer { passage?.done(inbox: inbox) }
    do {
      try syncDirectory(inbox)
    } catch {
      // The renames happened but may not be durable: report that rather than claim success.
      return results.map { $0.flatMap { _ in .failure(error) } }
    }
    return results
  }

  // MARK: Browsing

  /// The item stored under exactly `name`, or under the name that `name` is the escaped spelling
  /// of (as `share inbox list` shows `a\b.txt`: `a\\b.txt`, pasted back). When each reading
  /// names a different item, neither is taken: a sender could have named one to catch the other.
  package func item(named name: String) throws(InboxError) -> InboxItem {
    let items = list()
    func named(_ candidate: String?) -> InboxItem? {
      guard let candidate, InboxStore.isPlainName(candidate) else { return nil }
      return items.first { $0.name == candidate }
    }
    switch (named(name), named(Escaping.unescaped(name))) {
    case (let asIs?, let asShown?) where asIs.name != asShown.name:
      throw .ambiguousName(name, asIs: asIs.name, asShown: asShown.name)
    case (let item?, _), (nil, let item?): return item
    case (nil, nil): throw .noSuchItem(name)
    }
  }

  /// Drops metadata records whose item has left the Inbox (when enough have piled up), from
  /// journal files written long enough before `now` (`MetadataJournal.settleTime`).
  package func compactMetadata(force: Bool = false, now: Date = Date()) throws(InboxError) {
    try journal.compact(keeping: Set(list().map(\.identity)), force: force, now: now)
  }

  /// True for a single path component that is not `.` or `..`.
  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && name != "." && name != ".." && !name.unicodeScalars.contains("/") && !name.unicodeScalars.contains("\0")
  }
}

/// The status of `url` itself (not following a symbolic link).
func lstatus(_ url: URL) throws(InboxError) -> FileStatus {
  try InboxError.attempt("lstat", url.path) { () throws(Errno) in
    try FileSystem.status(url.path, followSymlinks: false)
  }
}

/// Sets the mode of `url`.
func chmod(_ url: URL, _ permissions: FilePermissions) throws(InboxError) {
  try InboxError.attempt("chmod", url.path) { () throws(Errno) in
    try FileSystem.setPermissions(url.path, permissions)
  }
}

/// Sets modes through a tree without following symlinks: files `file`, folders `folder`.
/// Folders are made writable while their content is changed, then given their final mode.
func setModes(under url: URL, file: FilePermissions, folder: FilePermissions) throws(InboxError) {
  let status = try lstatus(url)
  switch status.kind {
  case .directory:
    try chmod(url, .ownerReadWriteExecute)
    let names = (try? FileSystem.entryNames(of: url.path)) ?? []
    // `isDirectory` given: without it Foundation asks the file system (an lstat per entry).
    for name in names { try setModes(under: url.appendingPathComponent(name, isDirectory: false), file: file, folder: folder) }
    try chmod(url, folder)
  case .regular:
    // A file share staged is `file` already (`StagingFile.finish`): one call less each.
    if status.permissions != file { try chmod(url, file) }
  case .symbolicLink, .other:
    break
  }
}

/// Removes a file or a whole tree, read-only folders included.
func removeTree(_ url: URL) throws(InboxError) {
  let status: FileStatus
  do {
    status = try FileSystem.status(url.path, followSymlinks: false)
  } catch .noSuchFileOrDirectory {
    return
  } catch {
    throw InboxError.from("lstat", url.path, error)
  }
  if status.kind == .directory {
    try chmod(url, .ownerReadWriteExecute)
    let names = (try? FileSystem.entryNames(of: url.path)) ?? []
    for name in names { try removeTree(url.appendingPathComponent(name, isDirectory: false)) }
    try InboxError.attempt("rmdir", url.path) { () throws(Errno) in try FileSystem.removeDirectory(url.path) }
  } else {
    try InboxError.attempt("unlink", url.path) { () throws(Errno) in try FileSystem.remove(url.path) }
  }
}
