/// Parses request and response heads, strictly: exactly one reading of every message or an
/// error. Pure; no I/O.
///
/// Refused (see `HTTPError`): lines ending in a bare CR or bare LF, folded header lines,
/// whitespace between a field name and its colon, control characters in values, targets other
/// than origin-form, versions other than HTTP/1.0 and 1.1, a repeated or non-decimal
/// `Content-Length`, `Transfer-Encoding` together with `Content-Length`, transfer codings other
/// than one `chunked`, `Transfer-Encoding` on HTTP/1.0, an HTTP/1.1 request without exactly one
/// `Host`, and heads over the size and field-count limits.
package enum HTTPHeadParser {
  /// The request head at the start of `bytes` and its length, or nil while it is incomplete
  /// (call again with more bytes).
  package static func parseRequest(_ bytes: UnsafeRawBufferPointer, limits: HTTPLimits)
    throws(HTTPError) -> (head: HTTPRequestHead, length: Int)?
  {
    guard let (lines, length) = try splitLines(bytes, limits: limits) else { return nil }
    let (method, target, version) = try requestLine(bytes, lines[0], limits: limits)
    let headers = try fields(bytes, lines.dropFirst())
    if version == .http11 && headers.values("host").count != 1 { throw .hostRequired }
    let framing = try requestFraming(headers, version: version)
    let connection = headers.tokens("connection")
    let keepAlive = version == .http11 ? !connection.contains("close") : connection.contains("keep-alive")
    var expectsContinue = false
    let expect = headers.values("expect")
    if version == .http11 && !expect.isEmpty {
      guard expect.count == 1, expect[0].lowercasedASCII == "100-continue" else {
        throw .unsupportedExpectation
      }
      expectsContinue = true
    }
    let head = HTTPRequestHead(
      method: method, target: target, version: version, headers: headers, framing: framing,
      keepAlive: keepAlive, expectsContinue: expectsContinue)
    return (head, length)
  }

  /// The response head at the start of `bytes` and its length, or nil while incomplete.
  /// `requestMethod` decides whether a body may follow (none after HEAD).
  package static func parseResponse(
    _ bytes: UnsafeRawBufferPointer, limits: HTTPLimits, requestMethod: String
  ) throws(HTTPError) -> (head: HTTPResponseHead, length: Int)? {
    guard let (lines, length) = try splitLines(bytes, limits: limits) else { return nil }
    let (version, code, reason) = try statusLine(bytes, lines[0])
    let headers = try fields(bytes, lines.dropFirst())
    let framing = try responseFraming(
      headers, statusCode: code, headRequest: requestMethod == "HEAD")
    let connection = headers.tokens("connection")
    let persistent =
      version == .http11 ? !connection.contains("close") : connection.contains("keep-alive")
    let head = HTTPResponseHead(
      version: version, statusCode: code, reason: reason, headers: headers, framing: framing,
      keepAlive: persistent && framing != .untilClose)
    return (head, length)
  }

  // MARK: Lines

  /// The ranges of the head's lines (without CRLF) and the head's total length, or nil when the
  /// empty line that ends the head has not arrived yet.
  static func splitLines(_ bytes: UnsafeRawBufferPointer, limits: HTTPLimits)
    throws(HTTPError) -> (lines: [Range<Int>], length: Int)?
  {
    var lines: [Range<Int>] = []
    var start = 0
    var index = 0
    let end = min(bytes.count, limits.maxHeadBytes)
    while index < end {
      switch bytes[index] {
      case ASCII.cr:
        guard index + 1 < bytes.count else {
          if bytes.count >= limits.maxHeadBytes { throw .headTooLarge(limit: limits.maxHeadBytes) }
          return nil
        }
        guard bytes[index + 1] == ASCII.lf else { throw .malformedLine("bare CR") }
        if index == start {
          guard !lines.isEmpty else { throw .malformedRequestLine }
          guard index + 2 <= limits.maxHeadBytes else { throw .headTooLarge(limit: limits.maxHeadBytes) }
          return (lines, index + 2)
        }
        lines.append(start..<index)
        if lines.count > limits.maxHeaderCount + 1 {
          throw .tooManyHeaders(limit: limits.maxHeaderCount)
        }
        index += 2
        start = index
      case ASCII.lf:
        throw .malformedLine("bare LF")
      default:
        index += 1
      }
    }
    if bytes.count >= limits.maxHeadBytes { throw .headTooLarge(limit: limits.maxHeadBytes) }
    return nil
  }

  // MARK: Start lines

  /// `method SP request-target SP HTTP-version`, single spaces, origin-form target.
  static func requestLine(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>, limits: HTTPLimits)
    throws(HTTPError) -> (String, String, HTTPVersion)
  {
    let parts = split(bytes, line, on: ASCII.space)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { throw .malformedRequestLine }
    guard parts[0].count <= 32, parts[0].allSatisfy({ ASCII.isTokenByte(bytes[$0]) }) else {
      throw .malformedRequestLine
    }
    guard parts[1].count <= limits.maxTargetBytes else {
      throw .targetTooLong(limit: limits.maxTargetBytes)
    }
    guard bytes[parts[1].lowerBound] == ASCII.slash, isOriginForm(bytes, parts[1]) else {
      throw .malformedRequestLine
    }
    let version = try httpVersion(bytes, parts[2])
    return (text(bytes, parts[0]), text(bytes, parts[1]), version)
  }

  /// `HTTP-version SP 3DIGIT [SP reason-phrase]`.
  static func statusLine(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>)
    throws(HTTPError) -> (HTTPVersion, Int, String)
  {
    guard line.count >= 12, bytes[line.lowerBound + 8] == ASCII.space else {
      throw .malformedStatusLine
    }
    let version: HTTPVersion
    do {
      version = try httpVersion(bytes, line.lowerBound..<line.lowerBound + 8)
    } catch {
      throw .malformedStatusLine
    }
    let digits = line.lowerBound + 9..<line.lowerBound + 12
    guard digits.allSatisfy({ ASCII.isDigit(bytes[$0]) }), ASCII.isDigit(bytes[digits.lowerBound]),
      bytes[digits.lowerBound] != UInt8(ascii: "0")
    else { throw .malformedStatusLine }
    let code = digits.reduce(0) { $0 * 10 + Int(bytes[$1] - ASCII.zero) }
    var reason = ""
    if line.count > 12 {
      guard bytes[line.lowerBound + 12] == ASCII.space else { throw .malformedStatusLine }
      let range = line.lowerBound + 13..<line.upperBound
      guard range.allSatisfy({ ASCII.isFieldValueByte(bytes[$0]) }) else {
        throw .malformedStatusLine
      }
      reason = text(bytes, range)
    }
    return (version, code, reason)
  }

  static func httpVersion(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>)
    throws(HTTPError) -> HTTPVersion
  {
    let value = text(bytes, range)
    switch value {
    case "HTTP/1.1": return .http11
    case "HTTP/1.0": return .http10
    default:
      let shape = Array(value.utf8)
      if shape.count == 8, value.hasPrefix("HTTP/"), ASCII.isDigit(shape[5]), shape[6] == ASCII.dot,
        ASCII.isDigit(shape[7])
      {
        throw .unsupportedVersion
      }
      throw .malformedRequestLine
    }
  }

  /// Whether the target is absolute-path [ "?" query ] with only URI characters and valid
  /// percent-escapes.
  static func isOriginForm(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
    var index = range.lowerBound
    while index < range.upperBound {
      let byte = bytes[index]
      if byte == ASCII.percent {
        guard index + 2 < range.upperBound, ASCII.hexValue(bytes[index + 1]) != nil,
          ASCII.hexValue(bytes[index + 2]) != nil
        else { return false }
        index += 3
        continue
      }
      guard ASCII.isTargetByte(byte) else { return false }
      index += 1
    }
    return true
  }

  // MARK: Fields

  /// `field-name ":" OWS field-value OWS` for every line; no folding, no space before ":".
  static func fields(_ bytes: UnsafeRawBufferPointer, _ lines: ArraySlice<Range<Int>>)
    throws(HTTPError) -> HTTPHeaders
  {
    var headers = HTTPHeaders()
    for line in lines {
      let first = bytes[line.lowerBound]
      if first == ASCII.space || first == ASCII.tab { throw .obsoleteLineFolding }
      guard let colon = line.first(where: { bytes[$0] == ASCII.colon }) else {
        throw .malformedHeader("no colon")
      }
      let name = line.lowerBound..<colon
      guard !name.isEmpty else { throw .malformedHeader("empty name") }
      guard name.allSatisfy({ ASCII.isTokenByte(bytes[$0]) }) else {
        throw .malformedHeader("invalid character or whitespace in name")
      }
      var value = colon + 1..<line.upperBound
      while let low = value.first, bytes[low] == ASCII.space || bytes[low] == ASCII.tab {
        value = low + 1..<value.upperBound
      }
      while let high = value.last, bytes[high] == ASCII.space || bytes[high] == ASCII.tab {
        value = value.lowerBound..<high
      }
      guard value.allSatisfy({ ASCII.isFieldValueByte(bytes[$0]) }) else {
        throw .malformedHeader("control character in value")
      }
      headers.add(text(bytes, name), text(bytes, value))
    }
    return headers
  }

  // MARK: Framing

  static func requestFraming(_ headers: HTTPHeaders, version: HTTPVersion) throws(HTTPError)
    -> BodyFraming
  {
    let codings = headers.values("transfer-encoding")
    let lengths = headers.values("content-length")
    if !codings.isEmpty {
      guard lengths.isEmpty else { throw .conflictingFraming }
      guard version == .http11 else { throw .malformedHeader("Transfer-Encoding in HTTP/1.0") }
      guard codings.count == 1, codings[0].lowercasedASCII == "chunked" else {
        throw .unsupportedTransferEncoding
      }
      return .chunked
    }
    guard lengths.count <= 1 else { throw .invalidContentLength }
    guard let value = lengths.first else { return .none }
    guard let length = decimal(value) else { throw .invalidContentLength }
    return .length(length)
  }

  static func responseFraming(_ headers: HTTPHeaders, statusCode: Int, headRequest: Bool)
    throws(HTTPError) -> BodyFraming
  {
    if headRequest || (100..<200).contains(statusCode) || statusCode == 204 || statusCode == 304 {
      return .none
    }
    let codings = headers.tokens("transfer-encoding")
    let lengths = headers.values("content-length")
    if !codings.isEmpty {
      guard lengths.isEmpty else { throw .conflictingFraming }
      return codings == ["chunked"] ? .chunked : .untilClose
    }
    guard lengths.count <= 1 else { throw .invalidContentLength }
    guard let value = lengths.first else { return .untilClose }
    guard let length = decimal(value) else { throw .invalidContentLength }
    return .length(length)
  }

  /// 1 to 18 ASCII digits (no sign, no list), so the value fits an Int64.
  static func decimal(_ text: String) -> Int64? {
    let digits = Array(text.utf8)
    guard (1...18).contains(digits.count), digits.allSatisfy(ASCII.isDigit) else { return nil }
    return digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - ASCII.zero) }
  }

  // MARK: Helpers

  static func split(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, on separator: UInt8)
    -> [Range<Int>]
  {
    var parts: [Range<Int>] = []
    var start = range.lowerBound
    for index in range where bytes[index] == separator {
      parts.append(start..<index)
      start = index + 1
    }
    parts.append(start..<range.upperBound)
    return parts
  }

  static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }
}
