import Wire

/// Fuzzes what a peer's bytes meet first, inside TLS: frame headers, `begin` frames, JSON control
/// messages and `Ask.validate`.
///
/// An input that starts with a frame kind (1...4) is a stream of frames as a connection carries
/// them; any other input is one control message payload (JSON), so the JSON can be mutated
/// without keeping a header's length in step.
///
/// Properties:
/// - a header that decodes re-encodes to the same five bytes, and its length is within the cap
///   of its kind; an `end` frame is empty or a SHA-256;
/// - a `begin` payload that decodes re-encodes to the same bytes;
/// - a control message decodes (or fails) the same through `decode` as through `JSONDecoder`
///   alone (`ItemListReader`, the hand-written path for Asks, Answers and Receipts, agrees with it);
/// - a control message that decodes survives encode → decode unchanged, through either path;
/// - `Ask.validate` accepts exactly the asks a reference check accepts, under the default
///   limits and under tiny ones; the ids of an accepted ask fit a `begin` frame;
/// - an error's description is bounded and carries no raw terminal control characters.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzWire(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = bytes(data, size)
  if let first = input.first, FrameKind(rawValue: first) != nil {
    checkStream(input[...])
  } else {
    checkControl(input)
  }
  return 0
}

/// Small enough for a fuzzer to reach every boundary.
private let tinyLimits = WireLimits(maxControlBytes: 512, maxChunkBytes: 64, maxItemsPerAsk: 3, maxNameBytes: 8)

private func checkStream(_ stream: ArraySlice<UInt8>) {
  for limits in [WireLimits.default, tinyLimits] {
    var rest = stream
    while rest.count >= FrameHeader.size {
      let head = Array(rest.prefix(FrameHeader.size))
      rest = rest.dropFirst(FrameHeader.size)
      let header: FrameHeader
      do {
        header = try FrameHeader(decoding: head, limits: limits)
      } catch {
        checkError(error)
        break
      }
      require(header.encoded == head, "header \(head) re-encodes as \(header.encoded)")
      var written = [UInt8](repeating: 0, count: FrameHeader.size)
      written.withUnsafeMutableBytes { header.encode(into: $0) }
      require(written == head, "encode(into:) wrote \(written) for \(head)")
      switch header.kind {
      case .control: require(header.length <= limits.maxControlBytes, "control frame over its cap")
      case .data: require(header.length <= limits.maxChunkBytes, "data frame over its cap")
      case .end: require(header.length == 0 || header.length == Digest.size, "end frame of \(header.length) bytes")
      case .begin: require(header.length <= BeginFrame.maxSize, "begin frame over its cap")
      }
      guard rest.count >= header.length else { break }  // truncated: the connection would wait
      let payload = Array(rest.prefix(header.length))
      rest = rest.dropFirst(header.length)
      switch header.kind {
      case .control: checkControl(payload, limits: limits)
      case .begin: checkBegin(payload)
      case .end: require(payload.isEmpty || Digest(bytes: payload) != nil, "a 32-byte end frame is not a digest")
      case .data: break
      }
    }
  }
}

private func checkBegin(_ payload: [UInt8]) {
  do {
    let begin = try BeginFrame(decoding: payload)
    require(begin.encoded == payload, "begin \(payload) re-encodes as \(begin.encoded)")
    require(begin.offset >= 0, "negative offset decoded")
    require((begin.offset > 0) == (begin.prefixDigest != nil), "offset and prefix digest disagree")
  } catch {
    checkError(error)
  }
}

private func checkControl(_ payload: [UInt8], limits: WireLimits = .default) {
  let decoded = Result { () throws(WireError) in try MessageCodec.decode(payload) }
  let alone = Result { () throws(WireError) in try MessageCodec.decodeWithJSONDecoder(payload) }
  require(decoded == alone, "decode gives \(decoded), JSONDecoder alone \(alone)")
  // `==` compares strings by canonical equivalence; the bytes written back tell scalars apart.
  // (Only the item lists are read by hand, and only their writer's bytes are deterministic.)
  if case .success(let byHand) = decoded, case .success(let byDecoder) = alone, ["ask", "answer", "receipt"].contains(byHand.typeName) {
    require(MessageCodec.encode(byHand) == MessageCodec.encode(byDecoder), "decode and JSONDecoder differ in some text's scalars")
  }
  let message: Message
  switch decoded {
  case .success(let value): message = value
  case .failure(let error):
    checkError(error)
    return
  }
  let encoded = MessageCodec.encode(message)
  let again = Result { () throws(WireError) in try MessageCodec.decode(encoded) }
  let againAlone = Result { () throws(WireError) in try MessageCodec.decodeWithJSONDecoder(encoded) }
  require(again == .success(message), "\(message.typeName) changed through encode → decode: \(again)")
  require(againAlone == .success(message), "\(message.typeName) changed through encode → JSONDecoder: \(againAlone)")
  guard case .ask(let ask) = message else { return }
  for limits in [limits, tinyLimits] {
    var problem: WireError?
    do { try ask.validate(limits: limits) } catch {
      checkError(error)
      problem = error
    }
    let expected = referenceProblem(ask, limits: limits)
    require(
      (problem == nil) == (expected == nil),
      "validate says \(problem.map(String.init(describing:)) ?? "valid"), the reference says \(expected ?? "valid")")
    guard problem == nil else { continue }
    for item in ask.items {
      let begin = BeginFrame(item: item.id, entry: item.entries.map { $0.count - 1 })
      require((try? BeginFrame(decoding: begin.encoded)) == begin, "item \(item.id) cannot be named by a begin frame")
    }
  }
}

/// What `Ask.validate` must refuse, written independently of it.
private func referenceProblem(_ ask: Ask, limits: WireLimits) -> String? {
  if ask.items.isEmpty { return "no items" }
  if Set(ask.items.map(\.id)).count != ask.items.count { return "repeated id" }
  if ask.items.contains(where: { $0.id < 0 || $0.id >= Int(UInt32.max) }) { return "id out of range" }
  if ask.items.contains(where: { $0.name.unescaped.utf8.count > limits.maxNameBytes }) { return "long name" }
  if ask.items.contains(where: { ($0.size ?? 0) < 0 }) { return "negative size" }
  if ask.items.contains(where: { $0.entries != nil && $0.kind != .folder }) { return "entries on a non-folder" }
  let entries = ask.items.flatMap { $0.entries ?? [] }
  if entries.contains(where: { $0.size < 0 }) { return "negative entry size" }
  if entries.contains(where: { $0.path.unescaped.utf8.count > limits.maxNameBytes }) { return "long path" }
  if ask.items.count + entries.count > limits.maxItemsPerAsk { return "too many items" }
  for item in ask.items {
    guard let entries = item.entries else { continue }
    let total = entries.reduce(Int128(0)) { $0 + Int128($1.size) }
    if total > Int128(Int64.max) { return "entries too large" }
    if let size = item.size, Int128(size) != total { return "folder size is not its entries' sum" }
  }
  return nil
}

private func checkError(_ error: WireError) {
  let text = error.description
  require(text.utf8.count <= 400, "an error description of \(text.utf8.count) bytes")
  require(!hasTerminalControls(text), "raw control characters in an error: \(text.debugDescription)")
}
