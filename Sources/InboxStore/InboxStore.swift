import CLinux
import Foundation
import Glibc

/// The receiver's `Documents/Inbox` and the staging area beside it.
///
/// Bytes are written to staging (`Documents/.share/staging`, same file system, outside the
/// Inbox), made read-only and synced, and only then renamed into the Inbox with a rename that
/// never replaces an existing name; the Inbox directory is synced after. Nothing partial ever
/// appears in the Inbox. Immutable paths only, so any thread may use it; the file system
/// arbitrates concurrent placements (RENAME_NOREPLACE).
public final class InboxStore: Sendable {
  /// Mode of a file in the Inbox: readable, with no write bit.
  public static let fileMode: mode_t = 0o444
  /// Mode of a folder inside an Inbox item.
  public static let folderMode: mode_t = 0o555

  /// `<home>/Documents`, where `move` puts items by default.
  public let documents: URL
  /// `<home>/Documents/Inbox`.
  public let inbox: URL
  /// Partial and resumable transfers.
  public let staging: URL
  /// The metadata journal.
  public let metadataDirectory: URL

  private var journal: MetadataJournal { MetadataJournal(directory: metadataDirectory) }

  /// Opens the store under `documents`, creating the folders (owner-only) if needed.
  public init(documents: URL) throws(InboxError) {
    self.documents = documents
    inbox = documents.appendingPathComponent("Inbox")
    let state = documents.appendingPathComponent(".share")
    staging = state.appendingPathComponent("staging")
    metadataDirectory = state.appendingPathComponent("meta")
    for dir in [documents, inbox, state, staging, metadataDirectory] {
      try makeDirectory(dir, mode: dir == documents ? 0o755 : 0o700)
    }
  }

  // MARK: Receiving

  /// A new, empty staging file, owner-only until it is finished.
  public func createStagingFile() throws(InboxError) -> StagingFile {
    let url = staging.appendingPathComponent("\(randomHex(12)).part")
    let fd = retryingEINTR { open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
    if fd < 0 { throw InboxError.from("open", url.path) }
    return StagingFile(url: url, fd: fd)
  }

  /// A new, empty staging folder to build a folder item in.
  public func createStagingFolder() throws(InboxError) -> URL {
    let url = staging.appendingPathComponent("\(randomHex(12)).dir")
    if mkdir(url.path, 0o700) != 0 { throw InboxError.from("mkdir", url.path) }
    return url
  }

  /// Flushes everything staged to disk with one syncfs(2): how a batch of many small files is
  /// made durable without a sync per file.
  public func syncStaging() throws(InboxError) {
    let fd = retryingEINTR { open(staging.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if fd < 0 { throw InboxError.from("open", staging.path) }
    defer { close(fd) }
    if clinux_syncfs(fd) != 0 { throw InboxError.from("syncfs", staging.path) }
  }

  /// Makes a staged folder tree read-only (folders 0555, files already 0444) and returns the
  /// identity of its top folder.
  public func seal(folder url: URL) throws(InboxError) -> FileIdentity {
    try setModes(under: url, file: InboxStore.fileMode, folder: InboxStore.folderMode)
    var info = stat()
    if lstat(url.path, &info) != 0 { throw InboxError.from("lstat", url.path) }
    return FileIdentity(info)
  }

  /// An item ready to enter the Inbox: finished, read-only and synced in staging.
  public struct Placement: Sendable {
    public var staged: URL
    /// The sanitized name to place it under (a collision adds `-1`, `-2`, ...).
    public var name: String
    public var identity: FileIdentity
    public var metadata: ItemMetadata

    public init(staged: URL, name: String, identity: FileIdentity, metadata: ItemMetadata) {
      self.staged = staged
      self.name = name
      self.identity = identity
      self.metadata = metadata
    }
  }

  /// Places a batch of staged items into the Inbox: their metadata is journalled and synced,
  /// each is renamed in under a free name, then the Inbox directory is synced once.
  /// Returns, per placement, the name it was stored under or why it was not.
  public func place(_ batch: [Placement]) -> [Result<String, InboxError>] {
    guard !batch.isEmpty else { return [] }
    do {
      try journal.append(batch.map { MetadataRecord(file: $0.identity, meta: $0.metadata) })
    } catch {
      return batch.map { _ in .failure(error) }
    }
    var results: [Result<String, InboxError>] = []
    for placement in batch {
      results.append(Result { () throws(InboxError) in try rename(placement.staged, intoFreeNameIn: inbox, from: placement.name) })
    }
    do {
      try syncDirectory(inbox)
    } catch {
      // The renames happened but may not be durable: report that rather than claim success.
      return results.map { $0.flatMap { _ in .failure(error) } }
    }
    return results
  }

  // MARK: Browsing

  /// Everything in the Inbox, oldest first, with metadata where it is known.
  public func list() -> [InboxItem] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []
    var byIdentity: [FileIdentity: ItemMetadata] = [:]
    for record in journal.readAll().records { byIdentity[record.file] = record.meta }
    var items: [InboxItem] = []
    for name in names {
      let url = inbox.appendingPathComponent(name)
      var info = stat()
      guard lstat(url.path, &info) == 0 else { continue }
      let identity = FileIdentity(info)
      let kind: InboxItem.Kind
      switch info.st_mode & S_IFMT {
      case S_IFREG: kind = .file
      case S_IFDIR: kind = .folder
      default: kind = .other
      }
      let metadata = byIdentity[identity]
      items.append(
        InboxItem(
          name: name, url: url, kind: kind, size: metadata?.size ?? identity.size, metadata: metadata,
          identity: identity))
    }
    return items.sorted {
      let a = $0.metadata?.receivedAt ?? .distantPast
      let b = $1.metadata?.receivedAt ?? .distantPast
      return a != b ? a < b : $0.name < $1.name
    }
  }

  /// The item stored under exactly `name`.
  public func item(named name: String) throws(InboxError) -> InboxItem {
    guard InboxStore.isPlainName(name), let item = list().first(where: { $0.name == name }) else {
      throw .noSuchItem(name)
    }
    return item
  }

  /// Moves an item out of the Inbox, writable again, never overwriting anything.
  ///
  /// With no destination, or a destination folder, the item keeps its name (or takes the first
  /// free `name-N` variant); a destination that is not an existing folder is the new path and
  /// must not exist. Works across file systems (copy, sync, then remove the original).
  /// Returns where the item now is.
  @discardableResult
  public func move(_ name: String, to destination: URL? = nil) throws(InboxError) -> URL {
    let item = try item(named: name)
    let target = destination ?? documents
    var isFolder: ObjCBool = false
    let moved: URL
    if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue {
      let finalName = try rename(item.url, intoFreeNameIn: target, from: name, acrossFileSystems: true)
      moved = target.appendingPathComponent(finalName)
    } else {
      do {
        try renameNoReplace(item.url, to: target, acrossFileSystems: true)
      } catch .system(_, _, EEXIST) {
        throw .destinationExists(target.path)
      }
      moved = target
    }
    let mask = currentUmask()
    try setModes(under: moved, file: 0o666 & ~mask, folder: 0o777 & ~mask)
    try? syncDirectory(inbox)
    try? compactMetadata()
    return moved
  }

  /// Deletes an item (a folder with everything in it).
  public func delete(_ name: String) throws(InboxError) {
    let item = try item(named: name)
    try removeTree(item.url)
    try syncDirectory(inbox)
    try? compactMetadata()
  }

  /// Drops metadata records whose item has left the Inbox (when enough have piled up).
  public func compactMetadata(force: Bool = false) throws(InboxError) {
    try journal.compact(keeping: Set(list().map(\.identity)), force: force)
  }

  /// True for a single path component that is not `.` or `..`.
  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
  }

  // MARK: File system helpers

  /// Renames `source` into `folder` under `name` or its first free variant; returns the name.
  private func rename(
    _ source: URL, intoFreeNameIn folder: URL, from name: String, acrossFileSystems: Bool = false
  ) throws(InboxError) -> String {
    for number in 0..<100_000 {
      let candidate = InboxName.variant(of: name, number: number)
      do {
        try renameNoReplace(source, to: folder.appendingPathComponent(candidate), acrossFileSystems: acrossFileSystems)
        return candidate
      } catch .system(_, _, EEXIST) {
        continue
      }
    }
    throw InboxError.unexpected("no free name for \(name) in \(folder.path)")
  }

  /// renameat2(RENAME_NOREPLACE); across file systems, a synced copy then removal.
  private func renameNoReplace(_ source: URL, to target: URL, acrossFileSystems: Bool) throws(InboxError) {
    if clinux_rename_noreplace(AT_FDCWD, source.path, AT_FDCWD, target.path) == 0 { return }
    let code = errno
    guard code == EXDEV, acrossFileSystems else { throw InboxError.from("rename", target.path, code) }
    try copyAcross(source, to: target)
  }

  /// Copies to a temporary name beside `target`, syncs, renames in without replacing, then
  /// removes the source: a crash leaves both copies, never neither.
  private func copyAcross(_ source: URL, to target: URL) throws(InboxError) {
    let folder = target.deletingLastPathComponent()
    let temp = folder.appendingPathComponent(".\(target.lastPathComponent).\(randomHex(6)).share-tmp")
    do {
      try FileManager.default.copyItem(at: source, to: temp)
    } catch {
      try? removeTree(temp)
      throw InboxError.unexpected("cannot copy \(source.path) to \(folder.path): \(error.localizedDescription)")
    }
    let fd = retryingEINTR { open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if fd >= 0 {
      _ = clinux_syncfs(fd)
      close(fd)
    }
    if clinux_rename_noreplace(AT_FDCWD, temp.path, AT_FDCWD, target.path) != 0 {
      let code = errno
      try? removeTree(temp)
      throw InboxError.from("rename", target.path, code)
    }
    try syncDirectory(folder)
    try removeTree(source)
  }
}

/// An item in the Inbox.
public struct InboxItem: Sendable {
  public enum Kind: String, Sendable, Codable { case file, folder, other }
  /// The name in the Inbox (from the disk; escape before display).
  public var name: String
  public var url: URL
  public var kind: Kind
  public var size: Int64
  /// nil when the item has no record (put there by hand, or its record was lost).
  public var metadata: ItemMetadata?
  public var identity: FileIdentity
}

/// Creates a directory (and parents) if missing and sets its mode.
func makeDirectory(_ url: URL, mode: mode_t) throws(InboxError) {
  if mkdir(url.path, mode) == 0 { return }
  let code = errno
  if code == ENOENT {
    try makeDirectory(url.deletingLastPathComponent(), mode: 0o755)
    if mkdir(url.path, mode) == 0 || errno == EEXIST { return }
    throw InboxError.from("mkdir", url.path)
  }
  guard code == EEXIST else { throw InboxError.from("mkdir", url.path, code) }
  var info = stat()
  guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
    throw InboxError.unexpected("\(url.path) exists and is not a folder")
  }
}

/// Sets modes through a tree without following symlinks: files `file`, folders `folder`.
/// Folders are made writable while their content is changed, then given their final mode.
func setModes(under url: URL, file: mode_t, folder: mode_t) throws(InboxError) {
  var info = stat()
  if lstat(url.path, &info) != 0 { throw InboxError.from("lstat", url.path) }
  switch info.st_mode & S_IFMT {
  case S_IFDIR:
    if chmod(url.path, 0o700) != 0 { throw InboxError.from("chmod", url.path) }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    for name in names { try setModes(under: url.appendingPathComponent(name), file: file, folder: folder) }
    if chmod(url.path, folder) != 0 { throw InboxError.from("chmod", url.path) }
  case S_IFREG:
    if chmod(url.path, file) != 0 { throw InboxError.from("chmod", url.path) }
  default:
    break
  }
}

/// Removes a file or a whole tree, read-only folders included.
func removeTree(_ url: URL) throws(InboxError) {
  var info = stat()
  if lstat(url.path, &info) != 0 {
    if errno == ENOENT { return }
    throw InboxError.from("lstat", url.path)
  }
  if info.st_mode & S_IFMT == S_IFDIR {
    if chmod(url.path, 0o700) != 0 { throw InboxError.from("chmod", url.path) }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    for name in names { try removeTree(url.appendingPathComponent(name)) }
    if rmdir(url.path) != 0 { throw InboxError.from("rmdir", url.path) }
  } else if unlink(url.path) != 0 {
    throw InboxError.from("unlink", url.path)
  }
}

/// The process umask (read by setting and restoring it).
func currentUmask() -> mode_t {
  let mask = umask(0o022)
  umask(mask)
  return mask
}
