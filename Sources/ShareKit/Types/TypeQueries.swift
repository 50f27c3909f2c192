import Foundation
import UniformTypes
import Wire

/// What `share types` asks of this home's type rules.
extension TypeGate {
  /// The effective declarations: accepted, excluded and declared types, and where they came from.
  package var declarationsReport: DeclarationsReport { policy.declarationsReport }

  /// One type's conformance chain, tags and verdict. `query` is a type identifier
  /// (`public.jpeg`), a file extension (`.jpg`) or a MIME type (`image/jpeg`).
  /// - Throws: `ShareError.configuration` when it names no known type.
  package func report(for query: String) throws(ShareError) -> TypeReport {
    let identifier: TypeIdentifier
    do {
      identifier = try policy.registry.identifier(forQuery: query)
    } catch {
      throw .configuration("\(error.message) (see 'share types')")
    }
    guard let report = policy.report(for: identifier) else {
      throw .configuration("no type \(identifier) is known (see 'share types')")
    }
    return report
  }

  /// How this receiver would judge the file or folder at `path`: by its name, then its content.
  package func check(path: String) throws(FileReadError) -> CheckReport {
    try policy.check(path: path, sniffer: sniffer)
  }

  /// `report` as a receiver decides it for an entry of a folder: refused when the entry is part
  /// of a version-control folder (`inRepository`), as it is otherwise.
  package static func entryReport(_ report: CheckReport, inRepository: Bool) -> CheckReport {
    guard inRepository else { return report }
    var refused = report
    refused.verdict = Verdict(
      accepted: false, stage: .name, type: report.nameType, nameType: report.nameType, rule: .versionControl,
      reason: "rejected: \(VersionControl.reason)")
    return refused
  }

  /// The files of the folder at `path`, as `share send` offers them (`ItemCatalog`'s walk), and
  /// which of them a receiver refuses as part of a version-control folder whatever their types
  /// (all of them when the folder is one: `.git`, or laid out as a bare repository). Review 20:
  /// `share types check` called a folder's `.git/config` accepted, which the receiver refuses.
  package static func folderFiles(_ path: String) -> (files: [String], inRepository: Set<String>)? {
    var catalog = ItemCatalog()
    guard (try? catalog.add(path: path)) != nil, let entries = catalog.items.first?.offer.entries else { return nil }
    let components = entries.map { $0.path.unescaped.split(separator: "/").map(String.init) }
    let repositories = VersionControl.Prefixes(
      VersionControl.repositories(among: zip(components, entries).map { ($0, $1.kind == .folder) }))
    let whole = VersionControl.isControlName(URL(fileURLWithPath: path).lastPathComponent)
    var files: [String] = []
    var inRepository = Set<String>()
    for (entry, parts) in zip(entries, components) where entry.kind == .file {
      files.append(entry.path.unescaped)
      if whole || VersionControl.holds(parts, repositories: repositories) { inRepository.insert(entry.path.unescaped) }
    }
    return (files, inRepository)
  }

  /// A type's description ("PNG image"), and its plural as lists name kinds ("PNG images").
  package func describe(_ type: TypeIdentifier) -> String { policy.registry.describe(type) }
  package func describePlural(_ type: TypeIdentifier) -> String { policy.registry.describePlural(type) }
}
