#if canImport(LocalSend)
  import LocalSend
#endif

/// Fuzzes the LocalSend receiver's HTTP/1.1 layer, what a network peer's bytes meet first:
/// request and response heads, chunked bodies and query strings.
///
/// Built either standalone with the HTTP sources (scripts/fuzz-localsend-http.sh) or against the
/// LocalSend module.
///
/// Properties:
/// - a parsed head ends in CRLF CRLF within the input and the head limit; parsing exactly those
///   bytes gives the same head, and one byte fewer is "incomplete", never an error or a head;
/// - its framing agrees with its fields (one `Transfer-Encoding: chunked` and no
///   `Content-Length`, or one decimal `Content-Length`), names and values carry no CR, LF or NUL;
/// - a chunked body decodes to the same bytes and the same verdict whatever the read sizes,
///   never past its limit, and consumes nothing once complete;
/// - a query that parses survives build → parse unchanged;
/// - error descriptions are short and never echo the input.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzLocalSendHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let tiny = HTTPLimits(maxHeadBytes: 128, maxHeaderCount: 3, maxTargetBytes: 40)
  for limits in [HTTPLimits.default, tiny] {
    if let (head, length) = checkRequest(input, limits: limits) {
      checkQuery(head)
      if head.framing == .chunked { checkChunked(Array(input[length...]), seed: input.first ?? 0) }
    }
  }
  for method in ["POST", "HEAD"] {
    _ = try? parseBytes(input) { (raw) throws(HTTPError) in
      try HTTPHeadParser.parseResponse(raw, limits: .default, requestMethod: method)
    }
  }
  return 0
}

/// Stops the run so libFuzzer keeps the input.
func property(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("property violated: \(message())") }
}

func parseBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(HTTPError) -> T) throws(HTTPError) -> T {
  let result: Result<T, HTTPError> = bytes.withUnsafeBytes { raw in
    do throws(HTTPError) { return .success(try body(raw)) } catch { return .failure(error) }
  }
  return try result.get()
}

func checkRequest(_ input: [UInt8], limits: HTTPLimits) -> (HTTPRequestHead, Int)? {
  let parse = { (bytes: [UInt8]) throws(HTTPError) -> (head: HTTPRequestHead, length: Int)? in
    try parseBytes(bytes) { (raw) throws(HTTPError) in try HTTPHeadParser.parseRequest(raw, limits: limits) }
  }
  let parsed: (head: HTTPRequestHead, length: Int)?
  do {
    parsed = try parse(input)
  } catch {
    property(error.description.utf8.count < 120, "long error description")
    return nil
  }
  guard let (head, length) = parsed else { return nil }
  property(length <= input.count && length <= limits.maxHeadBytes, "head length out of bounds")
  property(Array(input[(length - 4)..<length]) == [13, 10, 13, 10], "head does not end in CRLF CRLF")
  let again = try? parse(Array(input[..<length]))
  property(again?.head == head && again?.length == length, "the head alone parses differently")
  var incomplete = false
  do { incomplete = try parse(Array(input[..<(length - 1)])) == nil } catch { incomplete = false }
  property(incomplete, "one byte fewer is not 'incomplete'")
  property(head.target.first == "/", "target not in origin-form")
  for field in head.headers {
    property(!field.name.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 || $0 == 32 }), "bad name byte")
    property(!field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }), "bad value byte")
  }
  let codings = head.headers.values("transfer-encoding")
  let lengths = head.headers.values("content-length")
  switch head.framing {
  case .chunked: property(codings.count == 1 && lengths.isEmpty, "chunked framing without exactly one coding")
  case .length(let n):
    // Leading zeros are decimal digits too ("06" is 6).
    property(codings.isEmpty && lengths.count == 1 && Int64(lengths[0]) == n, "length framing disagrees with its field")
  case .none: property(codings.isEmpty && lengths.isEmpty, "no framing despite framing fields")
  case .untilClose: property(false, "a request read until close")
  }
  return (head, length)
}

func checkChunked(_ body: [UInt8], seed: UInt8) {
  let limit: Int64 = 4096
  let whole = decodeChunked(body, step: body.count, limit: limit)
  let pieces = decodeChunked(body, step: Int(seed % 7) + 1, limit: limit)
  property(whole.data == pieces.data && whole.verdict == pieces.verdict, "read sizes change the decoded body")
  property(whole.data.count <= Int(limit), "decoded past the limit")
}

/// Decodes feeding `step` bytes at a time; the data and how it ended.
func decodeChunked(_ body: [UInt8], step: Int, limit: Int64) -> (data: [UInt8], verdict: String) {
  var decoder = ChunkedDecoder(limit: limit)
  var data: [UInt8] = []
  var offset = 0
  while offset < body.count {
    let piece = Array(body[offset..<min(body.count, offset + max(step, 1))])
    var used = 0
    while used < piece.count {
      let start = used
      let result: (consumed: Int, data: Range<Int>?)
      do {
        result = try parseBytes(piece) { (raw) throws(HTTPError) in try decoder.step(UnsafeRawBufferPointer(rebasing: raw[start...])) }
      } catch {
        return (data, "error \(error)")
      }
      property(result.consumed <= piece.count - start, "consumed more than given")
      if let range = result.data { data += piece[(start + range.lowerBound)..<(start + range.upperBound)] }
      if decoder.isComplete {
        property(result.consumed == 0 || piece.count > 0, "impossible")
        return (data, "complete at \(offset + start + result.consumed)")
      }
      if result.consumed == 0 { break }
      used += result.consumed
    }
    offset += used
  }
  return (data, "incomplete")
}

func checkQuery(_ head: HTTPRequestHead) {
  guard let query = head.query, let parameters = try? QueryString.parse(query) else { return }
  let rebuilt = QueryString.build(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
  property((try? QueryString.parse(rebuilt[...])) == parameters, "query does not survive build → parse")
}
