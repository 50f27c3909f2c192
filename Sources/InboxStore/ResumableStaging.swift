import Foundation
import System

/// What a resumable staging file is: whose item it holds, so a later offer of the same item by
/// the same sender can continue where the bytes stopped.
package struct ResumeRecord: Codable, Sendable, Equatable {
  package var senderId: String
  /// The sender's key for its source (path, size, modification time).
  package var resumeKey: String
  package var name: String
  package var size: Int64
  package var updatedAt: Date

  package init(senderId: String, resumeKey: String, name: String, size: Int64, updatedAt: Date = Date()) {
    self.senderId = senderId
    self.resumeKey = resumeKey
    self.name = name
    self.size = size
    self.updatedAt = updatedAt
  }

  /// The staging file name stem for this item: a digest of who sends what, so it is the same on
  /// every attempt and never a name from the network.
  package var stem: String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var second: UInt64 = 0x8422_2325_cbf2_9ce4
    for byte in "\(senderId)\0\(resumeKey)\0\(name)\0\(size)".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
      second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9e37_79b9
    }
    return "r-" + String(hash, radix: 16) + String(second, radix: 16)
  }
}

/// Resumable staging: a `<stem>.part` file beside a `<stem>.resume` record (JSON). Only files
/// with a known size and a sender resume key are resumable; everything else in staging is
/// discarded when its transfer ends.
extension InboxStore {
  func partURL(_ record: ResumeRecord) -> URL { staging.appendingPathComponent(record.stem + ".part") }
  func recordURL(_ record: ResumeRecord) -> URL { staging.appendingPathComponent(record.stem + ".resume") }

  /// How many bytes of this item staging already holds (0 when none). A record that does not
  /// match, is unreadable, or a part longer than the item, is discarded: never fatal.
  /// `discarding: false` only looks (to count what a resume would not need again, before the
  /// item's staging is claimed; review 31).
  package func resumableOffset(for record: ResumeRecord, discarding: Bool = true) -> Int64 {
    let recordURL = recordURL(record)
    let part = partURL(record)
    guard let data = FileManager.default.contents(atPath: recordURL.path) else {
      if discarding { try? FileSystem.remove(part.path) }
      return 0
    }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    guard let stored = try? decoder.decode(ResumeRecord.self, from: data),
      stored.senderId == record.senderId, stored.resumeKey == record.resumeKey, stored.name == record.name,
      stored.size == record.size, let status = try? FileSystem.status(part.path, followSymlinks: false),
      status.kind == .regular, status.size < record.size
    else {
      if discarding { discardResumable(record) }
      return 0
    }
    return status.size
  }

  /// Opens the staging file of a resumable item, creating it when `offset` is 0, else opening the
  /// existing one for appending after checking it still holds exactly `offset` bytes.
  package func openResumable(_ record: ResumeRecord, offset: Int64) throws(InboxError) -> StagingFile {
    let url = partURL(record)
    if offset == 0 {
      discardResumable(record)
      let file = try InboxError.attempt("open", url.path) { () throws(Errno) in
        try FileDescriptor.open(
          url.path, .readWrite, options: [.create, .exclusiveCreate, .noFollow], permissions: .ownerReadWrite)
      }
      // The record goes first, so even a receiver killed mid-item leaves a part it can resume.
      try writeRecord(record)
      return StagingFile(url: url, file: file)
    }
    let file = try InboxError.attempt("open", url.path) { () throws(Errno) in
      try FileDescriptor.open(url.path, .readWrite, options: .noFollow)
    }
    guard (try? file.status().size) == offset, (try? file.seek(offset: offset, from: .start)) == offset else {
      try? file.close()
      throw InboxError.unexpected("the staged part of \(record.name) changed")
    }
    return StagingFile(url: url, file: file, size: offset)
  }

  /// Keeps an interrupted item for resuming: its bytes synced, its record written. A part whose
  /// sync fails is removed with its record instead: the disk lost some of it, the page cache
  /// may still show those bytes to a resume's prefix check, and a later sync would not say so
  /// again (code review).
  package func keepForResume(_ file: StagingFile, record: ResumeRecord) {
    guard file.sync() else {
      file.discard()
      try? FileSystem.remove(recordURL(record).path)
      return
    }
    file.keep()
    var refreshed = record
    refreshed.updatedAt = Date()
    try? writeRecord(refreshed)
  }

  private func writeRecord(_ record: ResumeRecord) throws(InboxError) {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(record) else { throw InboxError.unexpected("cannot encode a resume record") }
    let path = recordURL(record).path
    try InboxError.attempt("write", path) { () throws(Errno) in try writeDurably(data, to: path) }
  }

  /// Removes an item's resumable staging and its record.
  package func discardResumable(_ record: ResumeRecord) {
    try? FileSystem.remove(partURL(record).path)
    try? FileSystem.remove(recordURL(record).path)
  }

  /// Whether another open of the lock file at `url` holds its lock.
  private static func isHeld(_ url: URL) -> Bool {
    do {
      return try FileLock.attempt(path: url.path) == nil
    } catch {
      return false
    }
  }

  /// Removes the kept parts of interrupted items (and their records) that have gone unused
  /// longer than `expiry`, but for the stems in `receiving` (being resumed now): a running
  /// daemon's sweep (review 44: only a restart removed them, and `share status` promised
  /// "gone after 7 days unused"). Returns how many were removed.
  @discardableResult
  package func expireResumable(expiry: TimeInterval, receiving: Set<String>) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    let cutoff = Date().timeIntervalSince1970 - expiry
    func unused(_ name: String) -> Bool {
      guard let modified = try? FileSystem.status(staging.appendingPathComponent(name).path, followSymlinks: false) else { return true }
      return Double(modified.modificationNanoseconds) / 1e9 < cutoff
    }
    var removed = 0
    for name in names where name.hasPrefix("r-") && name.hasSuffix(".part") {
      let stem = String(name.dropLast(5))
      guard !receiving.contains(stem), unused(name), unused(stem + ".resume") else { continue }
      try? FileSystem.remove(staging.appendingPathComponent(stem + ".resume").path)
      try? FileSystem.remove(staging.appendingPathComponent(name).path)
      removed += 1
    }
    return removed
  }

  /// Cleans staging when a daemon starts: first repairs any folder a crash left crossing into
  /// or out of the Inbox (`repairPassages`), then keeps resumable parts younger than `expiry` with a readable
  /// record and removes everything else (parts of transfers that cannot resume, folders, items
  /// being deleted, records without parts, expired parts). Returns how many resumable parts
  /// were kept.
  @discardableResult
  package func cleanStaging(expiry: TimeInterval) -> Int {
    repairPassages()
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    let cutoff = Date().timeIntervalSince1970 - expiry
    var kept = 0
    // A passage that could not be repaired stays for the next start.
    for name in names where !name.hasSuffix(FolderPassage.suffix) {
      let url = staging.appendingPathComponent(name)
      // A passage's lock that someone holds: an inbox command is moving a folder now.
      if name.hasSuffix(".lock"), Self.isHeld(url) { continue }
      let modified = try? FileSystem.status(url.path, followSymlinks: false).modificationNanoseconds
      let fresh = modified.map { Double($0) / 1e9 >= cutoff } ?? false
      if name.hasPrefix("r-"), name.hasSuffix(".part"), fresh,
        FileManager.default.fileExists(atPath: staging.appendingPathComponent(String(name.dropLast(5)) + ".resume").path)
      {
        kept += 1
        continue
      }
      if name.hasPrefix("r-"), name.hasSuffix(".resume"), fresh,
        FileManager.default.fileExists(atPath: staging.appendingPathComponent(String(name.dropLast(7)) + ".part").path)
      {
        continue
      }
      try? removeTree(url)
    }
    return kept
  }
}

extension StagingFile {
  /// Feeds the first `count` bytes of the file to `body`, in chunks (for checking a resumed
  /// prefix). Returns false when the file is shorter or unreadable.
  package func readPrefix(_ count: Int64, chunk: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
    guard let file = descriptor else { return false }
    var offset: Int64 = 0
    while offset < count {
      let want = Int(min(Int64(chunk.count), count - offset))
      let n = (try? file.read(fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<want]))) ?? 0
      if n == 0 { return false }
      body(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
      offset += Int64(n)
    }
    return true
  }
}

extension InboxStore {
  /// Removes the record of a resumable item whose part has been placed in the Inbox.
  package func forgetResumeRecord(_ record: ResumeRecord) {
    try? FileSystem.remove(recordURL(record).path)
  }

  /// Bytes free for this user on the file system holding the Inbox (statvfs), when known.
  package func availableBytes() -> Int64? {
    try? FileSystem.availableBytes(at: inbox.path)
  }

  /// The parts of interrupted items kept in staging for their senders to resume, and their
  /// bytes (review 19: they used the disk for a week, unseen). The parts of the stems in
  /// `receiving` are being received now, not kept (review 32: a live transfer was counted).
  package func resumableParts(receiving: Set<String> = []) -> (count: Int, bytes: Int64) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    var found = (count: 0, bytes: Int64(0))
    for name in names where name.hasPrefix("r-") && name.hasSuffix(".part") && !receiving.contains(String(name.dropLast(5))) {
      guard let status = try? FileSystem.status(staging.appendingPathComponent(name).path, followSymlinks: false) else { continue }
      found.count += 1
      found.bytes += status.size
    }
    return found
  }

  /// Files that may still be created on the Inbox's file system, and its total (see
  /// `FileSystem.availableFiles`).
  package func availableFiles() -> (free: Int64, total: Int64)? {
    (try? FileSystem.availableFiles(at: inbox.path)) ?? nil
  }
}
