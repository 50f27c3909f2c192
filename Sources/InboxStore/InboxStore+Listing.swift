import Foundation
import Synchronization
import System

extension InboxStore {
  /// Everything in the Inbox, oldest first, with metadata where it is known.
  ///
  /// An Inbox may hold 100,000 items: the journal is read on a second thread while this one
  /// reads the folder and each entry's status (relative to the open folder, no path lookup per
  /// item); then every item is made once, in order, its record moved in rather than copied.
  package func list() -> [InboxItem] {
    let journalRead = JournalRead(journal)
    var names = (try? FileSystem.entryNames(of: inbox.path)) ?? []
    if names.contains(where: FolderPassage.isTransient) {
      // A folder crossing the threshold (or left there by a crash) is not an item yet.
      let crossing = FolderPassage.transientNames(in: staging)
      names.removeAll { crossing.contains($0) }
    }
    let folder = try? FileDescriptor.open(inbox.path, .readOnly, options: .directory)
    defer { try? folder?.close() }
    let entries = names.compactMap { name in (try? folder?.status(ofEntry: name)).map { (name, $0) } }
    var byIdentity = journalRead.records()
    var records = entries.map { byIdentity[FileIdentity($0.1)] }
    byIdentity = [:]
    let keys = records.map { $0?.receivedAt ?? .distantPast }
    let order = entries.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : entries[$0].0 < entries[$1].0 }
    let directory = inbox.path
    return order.map { index in
      let (name, status) = entries[index]
      let identity = FileIdentity(status)
      var metadata: ItemMetadata? = nil
      swap(&metadata, &records[index])
      return InboxItem(
        name: name, directory: directory, kind: InboxItem.Kind(status.kind), size: metadata?.size ?? identity.size,
        metadata: metadata, identity: identity)
    }
  }
}

/// The journal's latest record per identity, read on a thread of its own.
private final class JournalRead: Sendable {
  private let table = Mutex<[FileIdentity: ItemMetadata]>([:])
  private let done = DispatchSemaphore(value: 0)

  init(_ journal: MetadataJournal) {
    let thread = Thread { [self] in
      var byIdentity: [FileIdentity: ItemMetadata] = [:]
      journal.forEachRecord { byIdentity[$0.file] = $0.meta }
      table.withLock { $0 = byIdentity }
      done.signal()
    }
    thread.name = "share-journal"
    thread.start()
  }

  /// The table, once the thread has read every journal file.
  func records() -> [FileIdentity: ItemMetadata] {
    done.wait()
    return table.withLock { table in
      defer { table = [:] }
      return table
    }
  }
}

/// An item in the Inbox.
package struct InboxItem: Sendable {
  package enum Kind: String, Sendable, Codable {
    case file, folder, other

    init(_ kind: FileStatus.Kind) {
      switch kind {
      case .regular: self = .file
      case .directory: self = .folder
      case .symbolicLink, .other: self = .other
      }
    }
  }
  /// The name in the Inbox (from the disk; escape before display).
  package var name: String
  /// The Inbox folder's path (one string shared by every item of a listing).
  let directory: String
  package var kind: Kind
  package var size: Int64
  /// nil when the item has no record (put there by hand, or its record was lost).
  package var metadata: ItemMetadata?
  package var identity: FileIdentity

  /// Where it is: the Inbox folder's path, `/`, its name.
  package var path: String { directory + "/" + name }
  package var url: URL { URL(fileURLWithPath: path, isDirectory: kind == .folder) }
}
