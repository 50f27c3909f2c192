import TextEscaping

/// Excel fetches a web query's page into a workbook when it opens, as it does an `.iqy` file's
/// (`com.microsoft.excel.query`, refused as macro-enabled), when the query's connection says
/// `refreshOnLoad` (review 37: an xlsx whose `xl/connections.xml` had a `webPr url=…` refreshed
/// on load was accepted while the `.iqy` of the same query was refused).
extension ContentClassifier {
  static let connectionsContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.connections+xml"

  /// The parts (lowercased names) `[Content_Types].xml` (lowercased `text`) makes connections
  /// parts: by an `Override`, or by a `Default` for their extension.
  static func declaredConnectionParts(_ text: String, parts: [String]) -> Set<String> {
    guard ByteSearch.contains(connectionsContentType, in: text) else { return [] }
    var named: Set<String> = []
    var extensions: Set<String> = []
    for bytes in text.utf8.split(separator: UInt8(ascii: "<")) {
      let element = text[bytes.startIndex..<bytes.endIndex]
      guard attributeValues("ContentType", in: element).first == connectionsContentType else { continue }
      if element.utf8.starts(with: "override".utf8), let part = attributeValues("PartName", in: element).first {
        named.insert(String(part.drop { $0 == "/" }))
      } else if element.utf8.starts(with: "default".utf8), let suffix = attributeValues("Extension", in: element).first {
        extensions.insert(suffix)
      }
    }
    guard !extensions.isEmpty else { return named }
    return named.union(parts.filter { partExtension($0).map(extensions.contains) == true })
  }

  /// A web query (a `url` attribute: `webPr`'s) in a connections part whose connections are
  /// refreshed when the workbook opens, within what is left of `budget`; nil when none is.
  static func webQuerySign(
    _ entries: [ZipEntry], _ parts: [String], connections: Set<String>, in bytes: ItemBytes, budget: inout Int
  ) -> String? {
    let spent = "its parts and connections are larger in all than share reads (\(packagePartsBudget >> 20) MiB)"
    return firstSign(in: entries, parts, where: connections.contains, bytes, &budget, spent) { entry, text in
      guard ByteSearch.contains("url", in: text) else { return nil }
      var url: String?
      var refreshed = false
      forEachAttribute(in: text[...]) { attribute, value in
        if attribute == "url", !value.isEmpty, url == nil { url = value }
        if attribute == "refreshonload", value == "1" || value == "true" { refreshed = true }
      }
      guard let url, refreshed else { return nil }
      let part = Escaping.escaped(entry.name, maximumLength: 60)
      return "a web query of \(Escaping.escaped(url, maximumLength: 60)) refreshed when it opens, in \(part)"
    }
  }
}
