import Foundation
import TextEscaping

/// JSON encoding of control messages: an object with a `type` field and snake_case keys.
/// Unknown fields are ignored, so a newer peer may add fields without breaking this one. The
/// messages with an entry per item are written and, in share's own shape, read by hand
/// (`ItemListWriter`, `ItemListReader`): on 5,000 items `JSONEncoder` and `JSONDecoder` took
/// 70–90 ms a message, on the one thread each side has for the exchange.
/// A peer's text (`PeerText`) is written whole, exactly as a `String` would be.
package enum MessageCodec {
  /// Encodes a message as the payload of a control frame.
  package static func encode(_ message: Message) -> [UInt8] {
    var bytes: [UInt8] = []
    write(message, into: &bytes)
    return bytes
  }

  /// Encodes a message with its frame header, ready to write.
  package static func frame(_ message: Message) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: FrameHeader.size)
    write(message, into: &bytes)
    bytes.withUnsafeMutableBytes {
      FrameHeader(kind: .control, length: $0.count - FrameHeader.size).encode(into: $0)
    }
    return bytes
  }

  /// Appends the message's JSON to `bytes`.
  private static func write(_ message: Message, into bytes: inout [UInt8]) {
    switch message {
    case .ask(let m): writeByHand(into: &bytes) { $0.message(message.typeName, m.items) { $0.offer($1) } }
    case .answer(let m): writeByHand(into: &bytes) { $0.message(message.typeName, m.items) { $0.answer($1) } }
    case .receipt(let m): writeByHand(into: &bytes) { $0.message(message.typeName, m.items) { $0.receipt($1) } }
    default: bytes += encodeWithJSONEncoder(message)
    }
  }

  /// The message as `JSONEncoder` writes it (snake_case keys, a peer's text whole): what `encode`
  /// sends for every message but the three with an entry per item, which `ItemListWriter` writes
  /// as the same JSON object (the tests compare the two for those three).
  package static func encodeWithJSONEncoder(_ message: Message) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.userInfo[PeerText.verbatim] = true
    do {
      switch message {
      case .hello(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .ask(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .answer(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .receipt(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .failure(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .wait(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .pair(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .pairKey(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .pairResult(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .pairConfirm(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      case .skip(let m): return try Array(encoder.encode(Typed(type: message.typeName, body: m)))
      }
    } catch {
      // Encoding these plain value types cannot fail; reaching here is a programmer error.
      fatalError("encoding a \(message.typeName) message failed: \(error)")
    }
  }

  /// Runs `body` on a writer that appends to `bytes` in place.
  private static func writeByHand(into bytes: inout [UInt8], _ body: (inout ItemListWriter) -> Void) {
    var writer = ItemListWriter(into: bytes)
    bytes = []  // the writer's array is the only one left: appending to it does not copy it
    body(&writer)
    bytes = writer.bytes
  }

  /// Decodes a control frame payload, with the peer's text within `TextBounds`.
  /// An Ask, an Answer or a Receipt in the shape share writes is read by `ItemListReader`; any
  /// other payload, or one it does not take, by `JSONDecoder` (the same message either way).
  package static func decode(_ bytes: [UInt8]) throws(WireError) -> Message {
    if let message = ItemListReader.read(bytes) { return try message.bounded() }
    return try decodeFields(bytes).bounded()
  }

  /// What `decode` gives through `JSONDecoder` alone: for the tests and the fuzzer that check
  /// `ItemListReader` against it.
  package static func decodeWithJSONDecoder(_ bytes: [UInt8]) throws(WireError) -> Message {
    try decodeFields(bytes).bounded()
  }

  /// Whether `decode` reads `bytes` by hand (`ItemListReader`) rather than with `JSONDecoder`.
  package static func readsByHand(_ bytes: [UInt8]) -> Bool {
    ItemListReader.read(bytes) != nil
  }

  private static func decodeFields(_ bytes: [UInt8]) throws(WireError) -> Message {
    let data = Data(bytes)
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let type: String
    do {
      type = try decoder.decode(TypeProbe.self, from: data).type
    } catch {
      throw .malformedMessage("not a JSON object with a \"type\" field")
    }
    do {
      switch type {
      case "hello": return .hello(try decoder.decode(Typed<Hello>.self, from: data).body)
      case "ask": return .ask(try decoder.decode(Typed<Ask>.self, from: data).body)
      case "answer": return .answer(try decoder.decode(Typed<Answer>.self, from: data).body)
      case "receipt": return .receipt(try decoder.decode(Typed<Receipt>.self, from: data).body)
      case "failure": return .failure(try decoder.decode(Typed<Failure>.self, from: data).body)
      case "wait": return .wait(try decoder.decode(Typed<Wait>.self, from: data).body)
      case "pair": return .pair(try decoder.decode(Typed<Pair>.self, from: data).body)
      case "pair_key": return .pairKey(try decoder.decode(Typed<PairKey>.self, from: data).body)
      case "pair_result": return .pairResult(try decoder.decode(Typed<PairResult>.self, from: data).body)
      case "pair_confirm": return .pairConfirm(try decoder.decode(Typed<PairConfirm>.self, from: data).body)
      case "skip": return .skip(try decoder.decode(Typed<Skip>.self, from: data).body)
      default: throw WireError.unknownMessage(String(type.prefix(40)))
      }
    } catch let error as WireError {
      throw error
    } catch let error as DecodingError {
      throw .malformedMessage("\(type): \(describe(error))")
    } catch {
      throw .malformedMessage("\(type): \(error)")
    }
  }
}

/// A message body with its `type` field beside the body's own fields.
private struct Typed<Body: Codable>: Codable {
  var type: String
  var body: Body

  private enum Keys: String, CodingKey { case type }

  init(type: String, body: Body) {
    self.type = type
    self.body = body
  }

  init(from decoder: any Decoder) throws {
    type = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .type)
    body = try Body(from: decoder)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(type, forKey: .type)
    try body.encode(to: encoder)
  }
}

private struct TypeProbe: Decodable { var type: String }

/// One line naming the field at fault, without echoing the peer's data.
private func describe(_ error: DecodingError) -> String {
  func path(_ context: DecodingError.Context) -> String {
    let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    return keys.isEmpty ? "top level" : keys.joined(separator: ".")
  }
  switch error {
  case .keyNotFound(let key, let context):
    return "missing field \"\(key.stringValue)\" at \(path(context))"
  case .typeMismatch(_, let context), .valueNotFound(_, let context):
    return "wrong type at \(path(context))"
  case .dataCorrupted(let context):
    return "invalid value at \(path(context))"
  @unknown default:
    return "undecodable"
  }
}
