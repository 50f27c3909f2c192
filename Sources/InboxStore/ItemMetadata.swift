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
  /// reads), written directly: JSONEncoder costs more than the rest of placing a small item.
  var jsonLine: String {
    func string(_ value: String) -> String { JSONString.literal(value, style: .journal) }
    var fields: [String] = [
      "\"file\":{\"inode\":\(file.inode),\"mtime_nanoseconds\":\(file.mtimeNanoseconds),\"size\":\(file.size)}"
    ]
    var meta: [String] = [
      "\"kind\":\(string(self.meta.kind.rawValue))",
      "\"original_name\":\(string(self.meta.originalName.unescaped))",
      "\"received_at\":\"\(iso8601(self.meta.receivedAt))\"",
      "\"sender_id\":\(string(self.meta.senderId))",
      "\"sender_name\":\(string(self.meta.senderName.unescaped))",
      "\"size\":\(self.meta.size)",
    ]
    if let files = self.meta.files { meta.append("\"files\":\(files)") }
    if let sha = self.meta.sha256 { meta.append("\"sha256\":\(string(sha))") }
    if let type = self.meta.type { meta.append("\"type\":\(string(type.rawValue))") }
    if let via = self.meta.protocol { meta.append("\"protocol\":\(string(via))") }
    if let verified = self.meta.senderVerified { meta.append("\"sender_verified\":\(verified)") }
    if let contact = self.meta.contactName { meta.append("\"contact_name\":\(string(contact.unescaped))") }
    if let posed = self.meta.posedAs { meta.append("\"posed_as\":\(string(posed.unescaped))") }
    if let count = self.meta.entriesRefused { meta.append("\"entries_refused\":\(count)") }
    if let refused = self.meta.refusedEntries {
      let entries = refused.map { "{\"path\":\(string($0.path.unescaped)),\"reason\":\(string($0.reason.unescaped))}" }
      meta.append("\"refused_entries\":[" + entries.joined(separator: ",") + "]")
    }
    fields.append("\"meta\":{" + meta.joined(separator: ",") + "}")
    return "{" + fields.joined(separator: ",") + "}\n"
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
