import Testing

@testable import LocalSend

/// The request parser reads every message exactly one way or refuses it.
@Suite struct HTTPParserTests {
  func parse(_ text: String, limits: HTTPLimits = .default) throws(HTTPError) -> (head: HTTPRequestHead, length: Int)? {
    try withBytes(Array(text.utf8)) { (raw) throws(HTTPError) in try HTTPHeadParser.parseRequest(raw, limits: limits) }
  }

  func refused(_ text: String, limits: HTTPLimits = .default) -> HTTPError? {
    do {
      _ = try parse(text, limits: limits)
      return nil
    } catch {
      return error
    }
  }

  @Test func aPlainRequestParsesWithItsFraming() throws {
    let text = "POST /api/localsend/v2/upload?sessionId=a&fileId=b&token=c HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\nbody..."
    let (head, length) = try #require(try parse(text))
    #expect(head.method == "POST")
    #expect(head.path == "/api/localsend/v2/upload")
    #expect(head.query == "sessionId=a&fileId=b&token=c")
    #expect(head.framing == .length(12))
    #expect(head.keepAlive)
    #expect(length == text.utf8.count - "body...".utf8.count)
  }

  @Test func anIncompleteHeadAsksForMore() throws {
    #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\n") == nil)
    #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\n\r") == nil)
  }

  @Test func smugglingShapesAreRefused() {
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n") == .invalidContentLength)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n") == .invalidContentLength)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n") == .invalidContentLength)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n") == .invalidContentLength)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n") == .conflictingFraming)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == .unsupportedTransferEncoding)
    #expect(
      refused("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
        == .unsupportedTransferEncoding)
    #expect(refused("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") != nil)
    #expect(
      refused("POST / HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\n") == .malformedHeader("invalid character or whitespace in name"))
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n") == .obsoleteLineFolding)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n") == .malformedLine("bare CR"))
    #expect(refused("POST / HTTP/1.1\nHost: x\n\n") == .malformedLine("bare LF"))
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nX: a\u{0}b\r\n\r\n") == .malformedHeader("control character in value"))
  }

  @Test func http11NeedsExactlyOneHost() {
    #expect(refused("GET / HTTP/1.1\r\n\r\n") == .hostRequired)
    #expect(refused("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == .hostRequired)
    #expect(refused("GET / HTTP/1.0\r\n\r\n") == nil)
  }

  @Test func theRequestLineIsStrict() {
    #expect(refused("GET  / HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET * HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET /<x> HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("GET / HTTP/2.0\r\nHost: x\r\n\r\n") == .unsupportedVersion)
    #expect(refused("GET / HTTPS/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
    #expect(refused("\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n") == .malformedRequestLine)
  }

  @Test func limitsAreEnforcedBeforeTheHeadEnds() {
    let limits = HTTPLimits(maxHeadBytes: 256, maxHeaderCount: 4, maxTargetBytes: 32)
    #expect(
      refused("GET /" + String(repeating: "a", count: 40) + " HTTP/1.1\r\nHost: x\r\n\r\n", limits: limits) == .targetTooLong(limit: 32))
    let many = (0..<5).map { "X\($0): y\r\n" }.joined()
    #expect(refused("GET / HTTP/1.1\r\nHost: x\r\n" + many + "\r\n", limits: limits) == .tooManyHeaders(limit: 4))
    #expect(refused("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 300), limits: limits) == .headTooLarge(limit: 256))
  }

  @Test func connectionAndExpectation() throws {
    #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n")?.head.keepAlive == false)
    #expect(try parse("GET / HTTP/1.0\r\n\r\n")?.head.keepAlive == false)
    #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.head.keepAlive == true)
    #expect(try parse("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")?.head.expectsContinue == true)
    #expect(refused("POST / HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n") == .unsupportedExpectation)
  }

  @Test func responsesAreFramedByStatusAndFields() throws {
    func response(_ text: String, method: String = "POST") throws(HTTPError) -> HTTPResponseHead? {
      try withBytes(Array(text.utf8)) { (raw) throws(HTTPError) in
        try HTTPHeadParser.parseResponse(raw, limits: .default, requestMethod: method)?.head
      }
    }
    #expect(try response("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n")?.framing == .length(2))
    #expect(try response("HTTP/1.0 400 Bad Request\r\n\r\n")?.framing == .untilClose)
    #expect(try response("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n")?.framing == BodyFraming.none)
    #expect(try response("HTTP/1.1 200\r\nTransfer-Encoding: chunked\r\n\r\n")?.framing == .chunked)
    #expect(try response("HTTP/1.1 200 OK\r\n\r\n", method: "HEAD")?.framing == BodyFraming.none)
    #expect(throws: HTTPError.malformedStatusLine) { try response("HTTP/1.1 20 OK\r\n\r\n") }
  }

  @Test func responsesSerializeWithLengthAndClose() {
    var headers = HTTPHeaders()
    headers.add("Content-Type", "application/json")
    let bytes = HTTPResponse(status: .ok, headers: headers, body: Array("{}".utf8)).serialized(closing: true)
    #expect(
      String(decoding: bytes, as: UTF8.self)
        == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    let none = HTTPResponse(status: .noContent, body: [1]).serialized(closing: false)
    #expect(String(decoding: none, as: UTF8.self) == "HTTP/1.1 204 No Content\r\n\r\n")
  }
}

@Suite struct ChunkedDecoderTests {
  /// Decodes `text` fed in pieces of `step` bytes; the data and whether it completed.
  func decode(_ text: String, step: Int, limit: Int64 = 1000) throws(HTTPError) -> (String, Bool, Int) {
    var decoder = ChunkedDecoder(limit: limit)
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var offset = 0
    while offset < bytes.count && !decoder.isComplete {
      let end = min(bytes.count, offset + step)
      var piece = Array(bytes[offset..<end])
      var consumedHere = 0
      while consumedHere < piece.count && !decoder.isComplete {
        let start = consumedHere
        let result = try withBytes(piece) { (raw) throws(HTTPError) in try decoder.step(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        if let data = result.data { out += piece[(consumedHere + data.lowerBound)..<(consumedHere + data.upperBound)] }
        consumedHere += result.consumed
        if result.consumed == 0 { break }
      }
      piece.removeAll()
      offset += consumedHere
    }
    return (String(decoding: out, as: UTF8.self), decoder.isComplete, offset)
  }

  @Test func chunksDecodeWhateverTheReadSizes() throws {
    let body = "5\r\nhello\r\nA\r\n, world!!!\r\n0\r\n\r\nNEXT"
    for step in [1, 2, 3, 7, 100] {
      let (data, complete, consumed) = try decode(body, step: step)
      #expect(data == "hello, world!!!")
      #expect(complete)
      #expect(consumed == body.utf8.count - 4, "what follows the body is left for the next request")
    }
  }

  @Test func malformedChunksAreRefused() {
    #expect(throws: HTTPError.malformedChunk("chunk extensions are not accepted")) { try decode("5;x=y\r\nhello\r\n0\r\n\r\n", step: 100) }
    #expect(throws: HTTPError.malformedChunk("trailer fields are not accepted")) { try decode("0\r\nX: y\r\n\r\n", step: 100) }
    #expect(throws: HTTPError.malformedChunk("chunk data not followed by CRLF")) { try decode("2\r\nhello\r\n0\r\n\r\n", step: 100) }
    #expect(throws: HTTPError.malformedChunk("bad chunk size")) { try decode("\r\nhello", step: 100) }
    #expect(throws: HTTPError.malformedChunk("chunk size too long")) { try decode("0000000000000001\r\n", step: 100) }
    #expect(throws: HTTPError.malformedChunk("bare CR after chunk size")) { try decode("5\rhello", step: 100) }
  }

  @Test func theLimitHoldsAcrossChunks() {
    #expect(throws: HTTPError.bodyTooLarge(limit: 6)) { try decode("4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n", step: 100, limit: 6) }
  }
}

@Suite struct QueryStringTests {
  @Test func parametersDecode() throws {
    let query = try QueryString.parse("sessionId=abc&fileId=some%20file&token=a%2Bb+c&flag")
    #expect(query == ["sessionId": "abc", "fileId": "some file", "token": "a+b c", "flag": ""])
  }

  @Test func ambiguityIsRefused() {
    #expect(throws: HTTPError.malformedQuery("repeated parameter")) { try QueryString.parse("a=1&a=2") }
    #expect(throws: HTTPError.malformedQuery("bad percent-escape")) { try QueryString.parse("a=%zz") }
    #expect(throws: HTTPError.malformedQuery("bad percent-escape")) { try QueryString.parse("a=%4") }
    #expect(throws: HTTPError.malformedQuery("not UTF-8")) { try QueryString.parse("a=%ff") }
    #expect(throws: HTTPError.malformedQuery("empty parameter")) { try QueryString.parse("a=1&&b=2") }
  }

  @Test func encodingRoundTrips() throws {
    let values = [("sessionId", "a b+c/é?&="), ("pin", "123 456")]
    let query = QueryString.build(values)
    #expect(!query.contains(" "))
    #expect(try QueryString.parse(query[...]) == ["sessionId": "a b+c/é?&=", "pin": "123 456"])
  }
}
