import TextEscaping

/// Reads an Ask, an Answer or a Receipt in the shape `ItemListWriter` writes, about fifty times
/// faster than `JSONDecoder` (78 ms for an Ask of 5,000 items, on the receiver's one thread before
/// any byte of them can come). It takes only what it can read exactly as `JSONDecoder` would:
/// `type` first, each field under its snake_case key at most once, integers as plain digits,
/// strings of valid UTF-8 with JSON's escapes, an absent field left out. Anything else — another
/// key (a newer peer's field, another spelling), `null`, a number with a fraction, a lone
/// surrogate, malformed JSON — gives nil and the message goes to `JSONDecoder`, so what a peer's
/// bytes decode to, and every error it gets, never depends on this path (the Wire fuzzer checks
/// that the two agree).
struct ItemListReader {
  let bytes: UnsafeRawBufferPointer
  /// Where the next byte is read (the JSON primitives are in `ItemListReader+JSON.swift`).
  var index = 0

  private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  /// The message in `payload`, or nil when it is not an Ask, an Answer or a Receipt in the
  /// shape described above.
  static func read(_ payload: [UInt8]) -> Message? {
    payload.withUnsafeBytes { buffer in
      var reader = ItemListReader(buffer)
      return reader.message()
    }
  }

  private mutating func message() -> Message? {
    guard take("{"), key("type"), let type = string(), take(","), key("items") else { return nil }
    let message: Message?
    switch type {
    case "ask": message = list { $0.offer() }.map { .ask(Ask(items: $0)) }
    case "answer": message = list { $0.answer() }.map { .answer(Answer(items: $0)) }
    case "receipt": message = list { $0.receipt() }.map { .receipt(Receipt(items: $0)) }
    default: return nil
    }
    guard take("}") else { return nil }
    skipSpace()
    return index == bytes.count ? message : nil
  }

  private mutating func offer() -> ItemOffer? {
    var id: Int?
    var kind: ItemKind?
    var name: String?
    var offer = ItemOffer(id: 0, kind: .file, name: "", size: nil)
    let complete = object { reader, key in
      switch key {
      case "id": return assign(&id, reader.integer().map(Int.init))
      case "kind": return assign(&kind, reader.string().flatMap(ItemKind.init(rawValue:)))
      case "name": return assign(&name, reader.string())
      case "size": return assign(&offer.size, reader.integer())
      case "type": return assign(&offer.type, reader.string())
      case "resume_key": return assign(&offer.resumeKey, reader.string())
      case "entries": return assign(&offer.entries, reader.list { $0.entryOffer() })
      default: return false
      }
    }
    guard complete, let id, let kind, let name else { return nil }
    offer.id = id
    offer.kind = kind
    offer.name = PeerText(name)
    return offer
  }

  private mutating func entryOffer() -> EntryOffer? {
    var path: String?
    var kind: ItemKind?
    var size: Int64?
    let complete = object { reader, key in
      switch key {
      case "path": return assign(&path, reader.string())
      case "kind": return assign(&kind, reader.string().flatMap(ItemKind.init(rawValue:)))
      case "size": return assign(&size, reader.integer())
      default: return false
      }
    }
    guard complete, let path, let kind, let size else { return nil }
    return EntryOffer(path: PeerText(path), kind: kind, size: size)
  }

  private mutating func answer() -> ItemAnswer? {
    var id: Int?
    var accepted: Bool?
    var answer = ItemAnswer(id: 0, accepted: false)
    let complete = object { reader, key in
      switch key {
      case "id": return assign(&id, reader.integer().map(Int.init))
      case "accepted": return assign(&accepted, reader.bool())
      case "reason": return assign(&answer.reason, reader.string().map { PeerText($0) })
      case "type": return assign(&answer.type, reader.string())
      case "offset": return assign(&answer.offset, reader.integer())
      case "entries": return assign(&answer.entries, reader.list { $0.entryAnswer() })
      default: return false
      }
    }
    guard complete, let id, let accepted else { return nil }
    answer.id = id
    answer.accepted = accepted
    return answer
  }

  private mutating func entryAnswer() -> EntryAnswer? {
    var accepted: Bool?
    var entry = EntryAnswer(accepted: false)
    let complete = object { reader, key in
      switch key {
      case "accepted": return assign(&accepted, reader.bool())
      case "reason": return assign(&entry.reason, reader.string().map { PeerText($0) })
      default: return false
      }
    }
    guard complete, let accepted else { return nil }
    entry.accepted = accepted
    return entry
  }

  private mutating func receipt() -> ItemReceipt? {
    var id: Int?
    var status: ItemReceipt.Status?
    var receipt = ItemReceipt(id: 0, status: .failed)
    let complete = object { reader, key in
      switch key {
      case "id": return assign(&id, reader.integer().map(Int.init))
      case "status": return assign(&status, reader.string().flatMap(ItemReceipt.Status.init(rawValue:)))
      case "stored_as": return assign(&receipt.storedAs, reader.string().map { PeerText($0) })
      case "reason": return assign(&receipt.reason, reader.string().map { PeerText($0) })
      case "type": return assign(&receipt.type, reader.string())
      case "size": return assign(&receipt.size, reader.integer())
      case "sha256": return assign(&receipt.sha256, reader.string().flatMap(Digest.init(hex:)))
      case "entries_stored": return assign(&receipt.entriesStored, reader.integer().map(Int.init))
      case "entries_refused": return assign(&receipt.entriesRefused, reader.integer().map(Int.init))
      case "refused_entries": return assign(&receipt.refusedEntries, reader.list { $0.refusedEntry() })
      default: return false
      }
    }
    guard complete, let id, let status else { return nil }
    receipt.id = id
    receipt.status = status
    return receipt
  }

  private mutating func refusedEntry() -> ItemReceipt.RefusedEntry? {
    var path: String?
    var reason: String?
    let complete = object { reader, key in
      switch key {
      case "path": return assign(&path, reader.string())
      case "reason": return assign(&reason, reader.string())
      default: return false
      }
    }
    guard complete, let path, let reason else { return nil }
    return ItemReceipt.RefusedEntry(path: PeerText(path), reason: PeerText(reason))
  }
}

/// Sets `slot` to `value` when the field has not come before and its value could be read.
private func assign<Value>(_ slot: inout Value?, _ value: Value?) -> Bool {
  guard slot == nil, let value else { return false }
  slot = value
  return true
}
