import Foundation
import System
import TextEscaping

/// Items leaving the Inbox: moved out (writable again) or deleted, never overwriting anything
/// and never leaving part of an item behind in the Inbox.
extension InboxStore {
  /// Moves an item out of the Inbox, writable again, never overwriting anything.
  ///
  /// With no destination, or a destination folder, the item keeps its name (or takes the first
  /// free `name-N` variant); a destination that is not an existing folder is the new path and
  /// must not exist. Works across file systems (copy, sync, then remove the original).
  /// Returns where the item now is.
  ///
  /// `isInterrupted` is asked once a copy across file systems is made and before it takes the
  /// item's place: when it says so, the copy is removed and the item stays (review 27: Ctrl-C
  /// during a copy left the folder hidden and the half-copy at the destination).
  @discardableResult
  package func move(_ name: String, to destination: URL? = nil, isInterrupted: () -> Bool = { false }) throws(InboxError) -> URL {
    let item = try item(named: name)
    let target = destination ?? documents
    var isFolder: ObjCBool = false
    let moved = try leaving(item) { (source) throws(InboxError) -> URL in
      if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue {
        let finalName = try rename(source, intoFreeNameIn: target, from: item.name, acrossFileSystems: true, isInterrupted: isInterrupted)
        return target.appendingPathComponent(finalName)
      }
      do throws(InboxError) {
        let folder = target.deletingLastPathComponent()
        try renameNoReplace(
          (source, source.path), into: (folder, folder.path), as: target.lastPathComponent, acrossFileSystems: true,
          isInterrupted: isInterrupted)
      } catch .system(_, _, .fileExists) {
        throw .destinationExists(target.path)
      }
      return target
    }
    let mask = FilePermissions.creationMask
    try setModes(
      under: moved, file: FilePermissions(rawValue: 0o666).subtracting(mask), folder: FilePermissions(rawValue: 0o777).subtracting(mask))
    try? syncDirectory(inbox)
    try? compactMetadata()
    return moved
  }

  /// Deletes an item (a folder with everything in it).
  package func delete(_ name: String) throws(InboxError) {
    let item = try item(named: name)
    try leaving(item) { (source) throws(InboxError) in try discard(fromInbox: source) }
    try? compactMetadata()
  }

  /// Runs `body`, which takes the item at the URL it is given out of the Inbox. A file goes as
  /// it is; a folder first crosses to a transient name and is made writable there (it can move
  /// under another parent only then; see `FolderPassage`). If `body` fails, the folder is
  /// sealed again and renamed back.
  private func leaving<Value>(_ item: InboxItem, _ body: (URL) throws(InboxError) -> Value) throws(InboxError) -> Value {
    guard item.kind == .folder else { return try body(item.url) }
    let passage = try FolderPassage.record([item.name], in: staging)
    defer { passage.done(inbox: inbox) }
    let transient = inbox.appendingPathComponent(passage.crossings[0].transient)
    do {
      try FileSystem.renameNoReplace(item.url.path, to: transient.path)
    } catch {
      throw InboxError.from("rename", item.url.path, error)
    }
    do {
      try chmod(transient, .ownerReadWriteExecute)
      return try body(transient)
    } catch {
      if (try? TopFolder.open(transient.path).seal()) != nil {
        _ = try? rename(transient, intoFreeNameIn: inbox, from: item.name)
      }
      throw error
    }
  }

  /// Takes `url` out of the Inbox in one rename, into staging, and removes it there: a crash
  /// never leaves part of an item in the Inbox (what is left in staging goes when the daemon
  /// starts). A folder's top folder must be writable (`leaving`).
  func discard(fromInbox url: URL) throws(InboxError) {
    let trash = staging.appendingPathComponent("\(randomHex(12)).trash", isDirectory: false)
    do {
      try FileSystem.renameNoReplace(url.path, to: trash.path)
    } catch .improperLink {
      // Staging on another file system than the Inbox (something mounted over it): in place.
      try removeTree(url)
      try syncDirectory(inbox)
      return
    } catch {
      throw InboxError.from("rename", url.path, error)
    }
    try syncDirectory(inbox)
    try removeTree(trash)
  }

  /// Renames `source` into `folder` under `name` or its first free variant; returns the name.
  func rename(
    _ source: URL, intoFreeNameIn folder: URL, from name: String, acrossFileSystems: Bool = false,
    isInterrupted: () -> Bool = { false }
  ) throws(InboxError) -> String {
    // Paths as strings, made once: Foundation's URL appending and `path` were a tenth of placing
    // a small item.
    let (sourcePath, folderPath) = (source.path, folder.path)
    for number in 0..<100_000 {
      let candidate = InboxName.variant(of: name, number: number)
      do {
        try renameNoReplace(
          (source, sourcePath), into: (folder, folderPath), as: candidate, acrossFileSystems: acrossFileSystems,
          isInterrupted: isInterrupted)
        return candidate
      } catch .system(_, _, .fileExists) {
        continue
      }
    }
    throw InboxError.unexpected("no free name for \(name) in \(folder.path)")
  }

  /// renameat2(RENAME_NOREPLACE) of `source` to `name` in `folder`; across file systems, a synced
  /// copy then removal. Each given as a URL and its path, the path made once by the caller.
  private func renameNoReplace(
    _ source: (url: URL, path: String), into folder: (url: URL, path: String), as name: String, acrossFileSystems: Bool,
    isInterrupted: () -> Bool = { false }
  ) throws(InboxError) {
    let target = folder.path == "/" ? "/" + name : folder.path + "/" + name
    do {
      try FileSystem.renameNoReplace(source.path, to: target)
    } catch .improperLink where acrossFileSystems {
      try copyAcross(source.url, to: folder.url.appendingPathComponent(name, isDirectory: false), isInterrupted: isInterrupted)
    } catch {
      throw InboxError.from("rename", target, error)
    }
  }

  /// Copies to a temporary name beside `target`, syncs, renames in without replacing, then
  /// removes the source: a crash leaves both copies, never neither, and a copy the disk failed
  /// to write (the sync says so) is removed and the source kept.
  private func copyAcross(_ source: URL, to target: URL, isInterrupted: () -> Bool) throws(InboxError) {
    let folder = target.deletingLastPathComponent()
    let temp = folder.appendingPathComponent(".\(target.lastPathComponent).\(randomHex(6)).share-tmp")
    // Opened before the copy, so that its sync reports a write-back error of the copy's data.
    let destination = try InboxError.attempt("open", folder.path) { () throws(Errno) in
      try FileDescriptor.open(folder.path, .readOnly, options: .directory)
    }
    try destination.closeAfter { () throws(InboxError) in
      do {
        try FileManager.default.copyItem(at: source, to: temp)
      } catch {
        try? removeTree(temp)
        // The item by the name it goes under, not the transient name a folder crosses under
        // (review 30: the message named `Inbox/.share-….passage`).
        throw Self.copyFailure(error, copying: target.lastPathComponent, to: folder.path)
      }
      do throws(InboxError) {
        try keepModificationTimes(of: source, on: temp)
      } catch {
        try? removeTree(temp)
        throw error
      }
      do throws(Errno) {
        try FileSystem.syncFileSystem(of: destination)
      } catch {
        try? removeTree(temp)
        throw InboxError.from("syncfs", folder.path, error)
      }
      if isInterrupted() {
        try? removeTree(temp)
        throw InboxError.unexpected("interrupted: the copy was removed and the item is still in the Inbox")
      }
    }
    do {
      try FileSystem.renameNoReplace(temp.path, to: target.path)
    } catch {
      try? removeTree(temp)
      throw InboxError.from("rename", target.path, error)
    }
    try syncDirectory(folder)
    try discard(fromInbox: source)
  }

  /// A failed copy, naming the item and why, by the errno under Foundation's error (a full
  /// disk, a read-only file system, no permission in their own words): Foundation's own
  /// ("The file doesn't exist." for `/proc/`) named nothing that was missing (review 30).
  static func copyFailure(_ error: any Error, copying name: String, to folder: String) -> InboxError {
    let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
    let posix = [error as NSError, underlying].compactMap { $0 }.first { $0.domain == NSPOSIXErrorDomain }
    let why: String
    switch posix.map({ Errno(rawValue: Int32($0.code)) }) {
    case nil: why = error.localizedDescription
    case .noSpace?, .diskQuotaExceeded?: why = "the disk is full; free some space and try again"
    case .readOnlyFileSystem?: why = "the file system is read-only"
    case .permissionDenied?, .notPermitted?: why = "permission denied; check that the folder is writable"
    case let code?: why = code.description
    }
    return .unexpected("cannot copy \(Escaping.quoted(name)) to \(InboxError.shown(folder)): \(why)")
  }

  /// Gives `copy`, a copy of the tree at `source`, the original's modification times, file by
  /// file and folder by folder: Foundation's `copyItem` leaves folders (and may leave files)
  /// modified now, where a rename within one file system keeps every time. A folder gets its
  /// time after its entries, whose copying changed it.
  private func keepModificationTimes(of source: URL, on copy: URL) throws(InboxError) {
    let status = try lstatus(source)
    if status.kind == .directory {
      let names = (try? FileSystem.entryNames(of: source.path)) ?? []
      for name in names {
        try keepModificationTimes(
          of: source.appendingPathComponent(name, isDirectory: false), on: copy.appendingPathComponent(name, isDirectory: false))
      }
    }
    try InboxError.attempt("utimensat", copy.path) { () throws(Errno) in
      try FileSystem.setModificationTime(copy.path, nanoseconds: status.modificationNanoseconds)
    }
  }
}
