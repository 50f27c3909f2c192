import Foundation
import TextEscaping

/// Finds the line of the first problem in an XML property list that Foundation refused.
///
/// swift-corelibs-foundation's plist parser reports "line 1" for every error, so share scans
/// the text itself: tags must nest, be plist tags, and entities must be the five XML ones.
/// Only used to explain a failure; parsing is Foundation's.
enum PlistLocator {
  struct Location: Equatable {
    var line: Int
    var problem: String
  }

  static let plistTags: Set<String> = [
    "plist", "dict", "key", "string", "array", "integer", "real", "true", "false", "date", "data",
  ]

  /// The first problem found, or nil when the text looks well formed (or is not XML).
  static func locate(_ data: some Collection<UInt8>) -> Location? {
    let bytes = Array(data.prefix(Declarations.maximumFileSize))
    guard let first = bytes.firstIndex(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
      bytes[first] == UInt8(ascii: "<")
    else {
      return bytes.isEmpty ? Location(line: 1, problem: "the file is empty") : nil
    }
    var scanner = Scanner(bytes: bytes)
    return scanner.firstProblem()
  }

  /// One pass over the text: where it is, which line, and the tags still open.
  private struct Scanner {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var open: [(name: String, line: Int)] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func firstProblem() -> Location? {
      while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x0A { line += 1 }
        if byte == UInt8(ascii: "&") {
          if let problem = entity() { return problem }
        } else if byte == UInt8(ascii: "<") {
          if let problem = tag() { return problem }
        } else {
          index += 1
        }
      }
      if let (name, openLine) = open.last {
        return Location(line: openLine, problem: "<\(name)> is never closed")
      }
      return nil
    }

    /// An entity at `index`: one of the five XML ones or a character reference.
    private mutating func entity() -> Location? {
      var end = index + 1
      while end < bytes.count, end < index + 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
      let entity = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
      let known = ["amp", "lt", "gt", "quot", "apos"].contains(entity) || entity.hasPrefix("#")
      if !known || end >= bytes.count || bytes[end] != UInt8(ascii: ";") {
        return Location(line: line, problem: "unknown or unterminated entity &\(Escaping.escaped(entity, maximumLength: 12))")
      }
      index = end + 1
      return nil
    }

    /// A tag at `index`: a plist tag that opens, or closes the one last opened.
    private mutating func tag() -> Location? {
      let startLine = line
      var end = index + 1
      while end < bytes.count, bytes[end] != UInt8(ascii: ">") {
        if bytes[end] == 0x0A { line += 1 }
        end += 1
      }
      guard end < bytes.count else { return Location(line: startLine, problem: "unterminated tag") }
      let inner = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
      index = end + 1
      if inner.hasPrefix("?") || inner.hasPrefix("!") { return nil }
      let closing = inner.hasPrefix("/")
      let selfClosing = inner.hasSuffix("/")
      var name = closing ? String(inner.dropFirst()) : inner
      if selfClosing { name = String(name.dropLast()) }
      name = String(name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).first ?? "")
      if closing { return close(name, at: startLine) }
      guard plistTags.contains(name) else {
        return Location(line: startLine, problem: "unknown tag <\(Escaping.escaped(inner, maximumLength: 40))>")
      }
      if !selfClosing { open.append((name, startLine)) }
      return nil
    }

    private mutating func close(_ name: String, at startLine: Int) -> Location? {
      let shown = Escaping.escaped(name, maximumLength: 40)
      guard let (last, openLine) = open.popLast() else {
        return Location(line: startLine, problem: "</\(shown)> closes nothing")
      }
      if last != name {
        return Location(line: startLine, problem: "</\(shown)> does not match <\(last)> opened on line \(openLine)")
      }
      return nil
    }
  }

  /// Foundation's message without its (wrong) ` on line N` / ` at line N`.
  static func withoutLineNumber(_ message: String) -> String {
    var text = message
    for marker in [" on line ", " at line "] {
      if let range = text.range(of: marker) {
        let rest = text[range.upperBound...].drop(while: { $0.isNumber })
        text = String(text[..<range.lowerBound]) + rest
      }
    }
    return Escaping.escaped(text)
  }
}
