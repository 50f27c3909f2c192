import Foundation
import Glibc
import System
import Wire

/// An item to send: how it describes itself (its offer) and where its bytes come from.
/// Built once, before anything is read, and shared by every recipient of a send.
package struct OutgoingItem: Sendable {
  /// Where the bytes come from.
  package enum Source: Sendable {
    /// A regular file, read when the receiver asks for it.
    case file(URL)
    /// Bytes held in memory (a URL or a text snippet).
    case inline([UInt8])
    /// A folder: one source file per offered entry (nil for a sub-folder entry).
    case folder(URL, entries: [URL?])
    /// A stream of unknown length, read once (standard input); `head` holds its first bytes,
    /// already read (to name it by its content), which are sent first.
    case stream(Int32, head: [UInt8])
    /// A stream copied to an unlinked temporary file, read from the start by each receiver.
    case spooled(Int32)
  }

  package var offer: ItemOffer
  package var source: Source
  /// The path or argument the user gave, for messages.
  package var label: String
  /// What each file was when it was offered: the item's own (key nil) or a folder entry's (its
  /// index). A file that is not so when it is read, or changes while it is read, is not sent
  /// (review 45: a file rewritten while its ask waited was stored as the old length of the new
  /// bytes, and the send succeeded).
  package var stamps: [Int?: FileStamp] = [:]

  package init(offer: ItemOffer, source: Source, label: String) {
    self.offer = offer
    self.source = source
    self.label = label
  }

  /// The payloads this item sends when the receiver accepted it as `answer` says: the whole
  /// item, or each accepted file entry of a folder, in order.
  func payloads(for answer: ItemAnswer) -> [(entry: Int?, size: Int64?)] {
    guard offer.kind == .folder, let entries = offer.entries else { return [(nil, offer.size)] }
    var result: [(Int?, Int64?)] = []
    for (index, entry) in entries.enumerated() where entry.kind == .file {
      if answer.entries?[safe: index]?.accepted ?? false { result.append((index, entry.size)) }
    }
    return result
  }

  /// What the `.sending` event says of a payload of this item: an entry of a folder by its
  /// path in it; resumable as the receiver decides it (a file with a resume key and at least
  /// `AskDecision.resumableBytes`).
  func sending(entry: Int?, size: Int64?, from offset: Int64) -> SendingPayload {
    let path = entry.flatMap { offer.entries?[safe: $0]?.path }
    let resumable = offer.kind == .file && offer.resumeKey != nil && (offer.size ?? 0) >= AskDecision.resumableBytes
    return SendingPayload(
      name: path.map { PeerText(offer.name.unescaped + "/" + $0.unescaped) } ?? offer.name, size: size, resumeFrom: offset,
      resumable: resumable)
  }

  /// The bytes the receiver will get for `answer`, when known.
  func acceptedBytes(for answer: ItemAnswer) -> Int64 {
    payloads(for: answer).reduce(0) { $0 + ($1.size ?? 0) }
  }

  /// The same source offered again gives the same key: path (its bytes), size, modification
  /// time, inode.
  static func resumeKey(for path: [UInt8], status: FileStatus) -> String {
    let (seconds, nanoseconds) = status.modificationNanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    let text = "\0\(status.size)\0\(seconds).\(nanoseconds)\0\(status.inode)"
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: a key, not a secret
    for byte in path + Array(text.utf8) {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
  }
}

/// A file as it was when offered: its size, modification time and inode.
package struct FileStamp: Sendable, Equatable {
  var size: Int64
  var modified: Int64
  var inode: UInt64

  init(_ status: FileStatus) {
    size = status.size
    modified = status.modificationNanoseconds
    inode = status.inode
  }

  /// How `now` differs from this stamp, in words; nil when it does not.
  func change(to now: FileStamp) -> String? {
    if now.inode != inode { return "it was replaced by another file" }
    if now.size != size { return "its size went from \(size) to \(now.size) bytes" }
    if now.modified != modified { return "it was modified" }
    return nil
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension OutgoingItem {
  /// Items for files and folders by path (a convenience over `ItemCatalog`).
  package static func files(_ paths: [String]) throws(ShareError) -> [OutgoingItem] {
    var catalog = ItemCatalog()
    for path in paths { try catalog.add(path: path) }
    return catalog.items
  }
}
