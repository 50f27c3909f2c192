import TextEscaping

/// The three messages with an entry per item (an Ask, an Answer, a Receipt) written by hand:
/// `JSONEncoder` with its snake_case keys took 15–20 µs an item, 70–90 ms each for 5,000 small
/// files, on each side's one thread between two peers that wait for it. The JSON is the object
/// `JSONEncoder` writes (the same fields, snake_case keys, absent optionals left out, a peer's text
/// whole), its fields in declaration order; `ItemListReader` reads it back, and `JSONDecoder`
/// reads it as well (`MessageCodecTests` compares all three).
struct ItemListWriter {
  private(set) var bytes: [UInt8]
  /// Whether a value was just written, so the next value or key needs a comma first.
  private var afterValue = false

  init(into bytes: [UInt8]) { self.bytes = bytes }

  /// `{"type":TYPE,"items":[…]}` with each item written by `item`.
  mutating func message<Item>(_ type: String, _ items: [Item], item: (inout ItemListWriter, Item) -> Void) {
    beginObject()
    field("type", type)
    list("items", items, element: item)
    endObject()
  }

  mutating func offer(_ offer: ItemOffer) {
    beginObject()
    field("id", Int64(offer.id))
    field("kind", offer.kind.rawValue)
    field("name", offer.name.unescaped)
    optional("size", offer.size)
    optional("type", offer.type)
    optional("resume_key", offer.resumeKey)
    if let entries = offer.entries {
      list("entries", entries) { writer, entry in
        writer.beginObject()
        writer.field("path", entry.path.unescaped)
        writer.field("kind", entry.kind.rawValue)
        writer.field("size", entry.size)
        writer.endObject()
      }
    }
    endObject()
  }

  mutating func answer(_ answer: ItemAnswer) {
    beginObject()
    field("id", Int64(answer.id))
    field("accepted", answer.accepted)
    optional("reason", answer.reason?.unescaped)
    optional("type", answer.type)
    optional("offset", answer.offset)
    if let entries = answer.entries {
      list("entries", entries) { writer, entry in
        writer.beginObject()
        writer.field("accepted", entry.accepted)
        writer.optional("reason", entry.reason?.unescaped)
        writer.endObject()
      }
    }
    endObject()
  }

  mutating func receipt(_ receipt: ItemReceipt) {
    beginObject()
    field("id", Int64(receipt.id))
    field("status", receipt.status.rawValue)
    optional("stored_as", receipt.storedAs?.unescaped)
    optional("reason", receipt.reason?.unescaped)
    optional("type", receipt.type)
    optional("size", receipt.size)
    optional("sha256", receipt.sha256?.hex)
    optional("entries_stored", receipt.entriesStored.map(Int64.init))
    optional("entries_refused", receipt.entriesRefused.map(Int64.init))
    if let refused = receipt.refusedEntries {
      list("refused_entries", refused) { writer, entry in
        writer.beginObject()
        writer.field("path", entry.path.unescaped)
        writer.field("reason", entry.reason.unescaped)
        writer.endObject()
      }
    }
    endObject()
  }

  // MARK: - JSON

  private mutating func beginObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
  }

  private mutating func endObject() {
    bytes.append(UInt8(ascii: "}"))
    afterValue = true
  }

  private mutating func list<Element>(_ key: String, _ elements: [Element], element: (inout ItemListWriter, Element) -> Void) {
    name(key)
    bytes.append(UInt8(ascii: "["))
    for item in elements { element(&self, item) }
    bytes.append(UInt8(ascii: "]"))
    afterValue = true
  }

  private mutating func field(_ key: String, _ value: String) {
    name(key)
    JSONString.append(value, style: .journal, to: &bytes)
    afterValue = true
  }

  private mutating func field(_ key: String, _ value: Int64) {
    name(key)
    bytes += String(value).utf8
    afterValue = true
  }

  private mutating func field(_ key: String, _ value: Bool) {
    name(key)
    bytes += (value ? "true" : "false").utf8
    afterValue = true
  }

  private mutating func optional(_ key: String, _ value: String?) {
    if let value { field(key, value) }
  }

  private mutating func optional(_ key: String, _ value: Int64?) {
    if let value { field(key, value) }
  }

  /// `"key":`, after a comma when a value came before it.
  private mutating func name(_ key: String) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    bytes += key.utf8
    bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
    afterValue = false
  }

  private mutating func separate() {
    if afterValue { bytes.append(UInt8(ascii: ",")) }
    afterValue = false
  }
}
