import Foundation
import Wire

/// One item as a send would offer it, with the type this home detects for it: what
/// `share send --dry-run` shows. Nothing is sent.
package struct OfferPreview: Sendable, Equatable {
  package var name: String
  /// `file`, `folder`, `url` or `text`.
  package var kind: String
  /// Bytes, when known in advance (not for standard input).
  package var size: Int64?
  /// The type detected here from the name and, for a file, its content; else the offer's own.
  package var type: String?
  /// For a folder: how many entries it offers, and how many of them are files.
  package var entries: Int?
  package var files: Int?
  /// The path or argument the user gave.
  package var source: String
}

extension ItemCatalog {
  /// The items as they would be offered, each file judged by `gate` as this home would.
  package func preview(judgedBy gate: TypeGate) -> [OfferPreview] {
    items.map { item in
      var type = item.offer.type
      if case .file(let url) = item.source, let report = try? gate.check(path: url.path) {
        type = report.verdict.type.rawValue
      }
      let entries = item.offer.entries
      return OfferPreview(
        name: item.offer.name.unescaped, kind: item.offer.kind.rawValue, size: item.offer.size, type: type, entries: entries?.count,
        files: entries?.filter { $0.kind == .file }.count, source: item.label)
    }
  }
}
