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

  /// `path`, and when it is a folder, the files `share send` would offer from it (the catalog's
  /// own walk: depth first in name order, links and special files left out), each to be judged
  /// by `check(_:)` as a receiver judges a folder's entries (review 16: a folder said "accepted"
  /// while 120 of its files would be refused).
  package func checks(_ path: String) -> [PathCheck] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
      let (files, inRepository, inRefusedFolder) = folderFiles(path)
    else { return [PathCheck(path: path)] }
    let base = path.hasSuffix("/") ? path : path + "/"
    // The folder is a version-control folder when all its files are.
    let whole = !files.isEmpty && inRepository.count == files.count
    return [PathCheck(path: path, inRepository: whole)]
      + files.map { PathCheck(path: base + $0, inRepository: inRepository.contains($0), refusedFolder: inRefusedFolder[$0]) }
  }

  /// How this receiver would judge `entry`: `check(path:)`, but refused as part of a
  /// version-control folder, or with the verdict of the folder refused by its name it is in.
  package func check(_ entry: PathCheck) throws(FileReadError) -> CheckReport {
    var report = try check(path: entry.path)
    if entry.inRepository {
      report.verdict = Verdict(
        accepted: false, stage: .name, type: report.nameType, nameType: report.nameType, rule: .versionControl,
        reason: "rejected: \(VersionControl.reason)")
    } else if let refusedFolder = entry.refusedFolder {
      report.verdict = refusedFolder
    }
    return report
  }

  /// The files of the folder at `path`, as `share send` offers them (`ItemCatalog`'s walk);
  /// which of them a receiver refuses as part of a version-control folder whatever their types
  /// (all of them when the folder is one: `.git`, or laid out as a bare repository; review 20:
  /// `share types check` called a folder's `.git/config` accepted, which the receiver refuses);
  /// and the verdicts of the folders refused by their names (`RefusedFolders`) on the files in them.
  private func folderFiles(
    _ path: String
  ) -> (files: [String], inRepository: Set<String>, inRefusedFolder: [String: Verdict])? {
    var catalog = ItemCatalog()
    guard (try? catalog.add(path: path)) != nil, let entries = catalog.items.first?.offer.entries else { return nil }
    let safe = entries.map {
      (components: $0.path.unescaped.split(separator: "/").map(String.init), isFolder: $0.kind == .folder)
    }
    let repositories = VersionControl.Prefixes(VersionControl.repositories(among: safe))
    let refusedFolders = RefusedFolders(among: safe, judge: { policy.judge(name: $0, kind: .folder) })
    let name = URL(fileURLWithPath: path).lastPathComponent
    let whole = VersionControl.isControlName(name)
    // A folder refused by its name is refused whole, its files with it.
    let itself = policy.judge(name: name, kind: .folder)
    var files: [String] = []
    var inRepository = Set<String>()
    var inRefusedFolder: [String: Verdict] = [:]
    for (entry, parts) in zip(entries, safe.map(\.components)) where entry.kind == .file {
      let entryPath = entry.path.unescaped
      files.append(entryPath)
      if whole || VersionControl.holds(parts, repositories: repositories) { inRepository.insert(entryPath) }
      inRefusedFolder[entryPath] = itself.accepted ? refusedFolders.verdict(for: parts) : itself
    }
    return (files, inRepository, inRefusedFolder)
  }

  /// A type's description ("PNG image"), and its plural as lists name kinds ("PNG images").
  package func describe(_ type: TypeIdentifier) -> String { policy.registry.describe(type) }
  package func describePlural(_ type: TypeIdentifier) -> String { policy.registry.describePlural(type) }
}

/// A path `share types check` judges (`TypeGate.checks(_:)`), with what its folder decides for it.
package struct PathCheck: Sendable {
  package let path: String
  /// Part of a version-control folder: refused whatever its type.
  var inRepository = false
  /// The verdict of the folder refused by its name it is in (`RefusedFolders`).
  var refusedFolder: Verdict?
}
