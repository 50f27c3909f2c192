import Foundation
import TextEscaping
import UniformTypes

/// What the Inbox remembers about an item beside its bytes.
package struct ItemMetadata: Codable, Sendable, Equatable {
  /// The name the sender offered: the sender's text, shown only escaped.
  package var originalName: PeerText
  /// What was offered: a file, a folder, a URL or a text snippet.
  package var kind: ItemKind
  /// The sender's device name: the sender's text, shown only escaped.
  package var senderName: PeerText
  /// The sender's device ID: the fingerprint of its certificate, 64 hex digits.
  package var senderId: String
  package var receivedAt: Date
  /// Bytes of the item (a folder: of all its files).
  package var size: Int64
  /// SHA-256 of a file item's bytes, 64 hex digits.
  package var sha256: String?
  /// The type the receiver decided on, such as `public.png`.
  package var type: TypeIdentifier?
  /// A folder's number of files.
  package var files: Int?
  /// The protocol it came by when not share's own: `"localsend"`. For LocalSend, `senderId` is
  /// the fingerprint the sender claimed (proven only when `senderVerified` is true).
  package var `protocol`: String? = nil
  /// Whether `senderId` was proven by the sender's certificate; nil for share's own protocol,
  /// where it always is.
  package var senderVerified: Bool? = nil
  /// The name this home knew the sender's ID by when the item arrived, if the sender was a
  /// contact: shown as who sent it, whatever name the sender gave (`senderName`).
  package var contactName: PeerText? = nil
  /// For a sender that was not a contact: the name of the contact whose name it used, or one
  /// like it, as the ask's warning said. Shown with the item, so the warning outlives the ask.
  package var posedAs: PeerText? = nil
  /// A folder's entries that were offered but not stored, each with why (the first few, in
  /// offer order); nil when every entry was stored.
  package var refusedEntries: [RefusedEntry]?
  /// How many of a folder's entries were not stored, when some were not: `refusedEntries` names
  /// the first few (review 16: `inbox show` stopped at 100 without saying there were more).
  package var entriesRefused: Int? = nil

  /// One entry of a folder that is not in it, and why: the receiver's sentence.
  package struct RefusedEntry: Codable, Sendable, Equatable {
    /// Its path inside the folder, as offered: the sender's text.
    package var path: PeerText
    /// Why it is not there (the receiver's sentence, which names the sender's text).
    package var reason: PeerText
    package init(path: PeerText, reason: PeerText) {
      self.path = path
      self.reason = reason
    }
  }

  package init(
    originalName: PeerText, kind: ItemKind, senderName: PeerText, senderId: String,
    receivedAt: Date, size: Int64, sha256: String? = nil, type: TypeIdentifier? = nil, files: Int? = nil,
    refusedEntries: [RefusedEntry]? = nil
  ) {
    self.originalName = originalName
    self.kind = kind
    self.senderName = senderName
    self.senderId = senderId
    self.receivedAt = receivedAt
    self.size = size
    self.sha256 = sha256
    self.type = type
    self.files = files
    self.refusedEntries = refusedEntries
  }
}

/// One line of the metadata journal: the record for one file identity.
extension ItemMetadata {
  /// When it was received, as `2026-12-01T09:30:00Z` (UTC, whole seconds).
  package var receivedAtText: String { iso8601(receivedAt) }
}

struct MetadataRecord: Codable {
  var file: FileIdentity
  var meta: ItemMetadata
}

extension MetadataRecord {
  /// The record as one line of JSON, in the journal's keys (what `MetadataJournal`'s decoder
  /// reads, and `MetadataLineParser` reads back in exactly this shape), appended to `line`:
  /// JSONEncoder cost more than the rest of placing a small item, and strings interpolated and
  /// joined 54 K instructions a record (callgrind).
  func appendJSONLine(to line: inout [UInt8]) {
    // The buffer is moved in and back out, so that appending never copies it.
    var out = JournalLine(bytes: line)
    line = []
    out.raw("{\"file\":{")
    out.number("\"inode\":", file.inode)
    out.number(",\"mtime_nanoseconds\":", file.mtimeNanoseconds)
    out.number(",\"size\":", file.size)
    out.string("},\"meta\":{\"kind\":", meta.kind.rawValue)
    out.string(",\"original_name\":", meta.originalName.unescaped)
    out.raw(",\"received_at\":\"")
    out.bytes.append(contentsOf: iso8601(meta.receivedAt).utf8)
    out.string("\",\"sender_id\":", meta.senderId)
    out.string(",\"sender_name\":", meta.senderName.unescaped)
    out.number(",\"size\":", meta.size)
    // The fields written only when they have a value, in the journal's order.
    if let files = meta.files { out.number(",\"files\":", files) }
    if let sha = meta.sha256 { out.string(",\"sha256\":", sha) }
    if let type = meta.type { out.string(",\"type\":", type.rawValue) }
    if let via = meta.protocol { out.string(",\"protocol\":", via) }
    if let verified = meta.senderVerified { out.raw(verified ? ",\"sender_verified\":true" : ",\"sender_verified\":false") }
    if let contact = meta.contactName { out.string(",\"contact_name\":", contact.unescaped) }
    if let posed = meta.posedAs { out.string(",\"posed_as\":", posed.unescaped) }
    if let count = meta.entriesRefused { out.number(",\"entries_refused\":", count) }
    if let refused = meta.refusedEntries {
      out.raw(",\"refused_entries\":[")
      for (index, entry) in refused.enumerated() {
        out.string(index == 0 ? "{\"path\":" : ",{\"path\":", entry.path.unescaped)
        out.string(",\"reason\":", entry.reason.unescaped)
        out.raw("}")
      }
      out.raw("]")
    }
    out.raw("}}\n")
    line = out.bytes
  }

  /// `appendJSONLine` as a string.
  var jsonLine: String {
    var line: [UInt8] = []
    appendJSONLine(to: &line)
    return String(decoding: line, as: UTF8.self)
  }
}

/// Bytes of a journal line being written: literal JSON, and values after their keys.
private struct JournalLine {
  var bytes: [UInt8]

  mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func string(_ key: StaticString, _ value: String) {
    raw(key)
    JSONString.append(value, style: .journal, to: &bytes)
  }

  mutating func number(_ key: StaticString, _ value: some BinaryInteger) {
    raw(key)
    bytes.append(contentsOf: String(value).utf8)
  }
}

/// `YYYY-MM-DDTHH:MM:SSZ` in UTC, as JSONDecoder's `.iso8601` strategy reads it.
func iso8601(_ date: Date) -> String {
  var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
  var parts = tm()
  gmtime_r(&seconds, &parts)
  func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
  return
    "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}
