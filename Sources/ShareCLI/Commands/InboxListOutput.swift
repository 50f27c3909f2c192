import Foundation
import ShareKit

/// `share inbox list`'s lines for scripts (tab-separated) and for `--json`, written into chunks
/// of about 64 KiB rather than one write or one `JSONEncoder` run per item: an Inbox may hold
/// 100,000 items. The JSON is byte for byte what `JSONOutput.line(InboxItemOutput(item))` gives
/// (its keys sorted, its escapes; `inbox show --json` still goes that way).
struct InboxListOutput {
  private let terminal: Terminal
  private var chunk: [UInt8] = []
  /// The last date and sender written, with their text: items arrive in runs from one send.
  private var lastDate: (date: Date, text: String)?
  private var lastSender: (label: SenderLabel, text: String)?

  init(to terminal: Terminal) {
    self.terminal = terminal
    chunk.reserveCapacity(80 << 10)
  }

  /// One item as a line of the table: name, size, type, when, from whom.
  mutating func writeLine(_ item: InboxItem) {
    append(escape(item.name))
    append("\t")
    append(formatBytes(item.size))
    append("\t")
    append(item.metadata?.type?.rawValue ?? item.kind.rawValue)
    append("\t")
    append(item.metadata.map { receivedAtText($0) } ?? "-")
    append("\t")
    append(item.metadata.map { sender(SenderLabel($0)) } ?? "unknown sender")
    endLine()
  }

  /// One item as a line of JSON, its keys in sorted order.
  mutating func writeJSON(_ item: InboxItem) {
    let meta = item.metadata
    append("{")
    if let contact = meta?.contactName {
      append("\"contact_name\":")
      appendJSON(contact.unescaped)
      append(",")
    }
    if let count = meta?.entriesRefused { append("\"entries_refused\":\(count),") }
    if let files = meta?.files { append("\"files\":\(files),") }
    append("\"kind\":")
    appendJSON(meta?.kind.rawValue ?? item.kind.rawValue)
    append(",\"name\":")
    appendJSON(item.name)
    if let meta { field("original_name", meta.originalName.unescaped) }
    field("path", item.path)
    if let posed = meta?.posedAs { field("posed_as", posed.unescaped) }
    if let via = meta?.protocol { field("protocol", via) }
    if let meta { field("received_at", receivedAtText(meta)) }
    if let refused = meta?.refusedEntries {
      append(",\"refused_entries\":[")
      for (index, entry) in refused.enumerated() {
        append(index == 0 ? "{\"path\":" : ",{\"path\":")
        appendJSON(entry.path.unescaped)
        append(",\"reason\":")
        appendJSON(entry.reason.unescaped)
        append("}")
      }
      append("]")
    }
    if let meta {
      field("sender_id", meta.senderId)
      field("sender_name", meta.senderName.unescaped)
    }
    if let verified = meta?.senderVerified { append(verified ? ",\"sender_verified\":true" : ",\"sender_verified\":false") }
    if let sha = meta?.sha256 { field("sha256", sha) }
    append(",\"size\":")
    append(String(item.size))
    if let type = meta?.type { field("type", type.rawValue) }
    append("}")
    endLine()
  }

  /// Writes what is left.
  mutating func finish() {
    guard !chunk.isEmpty else { return }
    terminal.console.write(String(decoding: chunk, as: UTF8.self), to: .standardOutput)
    chunk.removeAll(keepingCapacity: true)
  }

  private mutating func endLine() {
    chunk.append(0x0A)
    if chunk.count >= 65536 { finish() }
  }

  private mutating func append(_ text: String) { chunk.append(contentsOf: text.utf8) }

  private mutating func field(_ key: StaticString, _ value: String) {
    chunk.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "\"")])
    chunk.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    chunk.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    appendJSON(value)
  }

  /// `value` as a JSON string, escaped as `JSONOutput.line` escapes it.
  private mutating func appendJSON(_ value: String) { JSONString.append(value, style: .output, to: &chunk) }

  private mutating func receivedAtText(_ meta: ItemMetadata) -> String {
    if let lastDate, lastDate.date == meta.receivedAt { return lastDate.text }
    let text = meta.receivedAtText
    lastDate = (meta.receivedAt, text)
    return text
  }

  /// Who sent an item: name and the start of its ID, escaped.
  private mutating func sender(_ label: SenderLabel) -> String {
    if let lastSender, lastSender.label == label { return lastSender.text }
    let text = label.text
    lastSender = (label, text)
    return text
  }
}
