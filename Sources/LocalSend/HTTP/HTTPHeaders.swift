/// Header fields in the order received. Names compare case-insensitively (ASCII); values are
/// kept as sent, without surrounding whitespace.
package struct HTTPHeaders: Sendable, Equatable, Sequence {
  package struct Field: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  package private(set) var fields: [Field] = []

  package init(_ fields: [(String, String)] = []) {
    self.fields = fields.map { Field(name: $0.0, value: $0.1) }
  }

  package mutating func add(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Every value of the fields named `name`.
  package func values(_ name: String) -> [String] {
    let wanted = name.lowercasedASCII
    return fields.filter { $0.name.lowercasedASCII == wanted }.map(\.value)
  }

  /// The value of the only field named `name`; nil when absent.
  package subscript(name: String) -> String? { values(name).first }

  package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

  /// The comma-separated tokens of every field named `name`, lowercased.
  func tokens(_ name: String) -> [String] {
    values(name).flatMap { $0.split(separator: ",") }
      .map { String($0).trimmingOWS.lowercasedASCII }
      .filter { !$0.isEmpty }
  }
}

extension String {
  /// ASCII lowercasing; other characters unchanged (header names are ASCII tokens).
  var lowercasedASCII: String {
    String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
  }

  /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
  var trimmingOWS: String {
    var bytes = Substring(self).utf8[...]
    while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
    while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
    return String(decoding: bytes, as: UTF8.self)
  }
}
