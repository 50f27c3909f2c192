import UniformTypes

/// The folders among a folder item's entries that the type rules refuse by their names (a
/// bundle installer package, `Setup.pkg`: `TypePolicy.folderForms`), and the entries under
/// them, each refused with its outermost refused folder's verdict: such a folder is refused
/// whole, as a version-control folder is (review 37: its entries, none refused on its own,
/// were taken and made the package again in the Inbox).
struct RefusedFolders {
  private var verdicts: [[String]: Verdict] = [:]
  private let prefixes: VersionControl.Prefixes

  /// `entries` by their path components; `judge` gives a folder's verdict by its name.
  init(among entries: [(components: [String], isFolder: Bool)], judge: (String) -> Verdict?) {
    for entry in entries where entry.isFolder {
      guard let name = entry.components.last, let verdict = judge(name), !verdict.accepted else { continue }
      verdicts[entry.components] = verdict
    }
    prefixes = VersionControl.Prefixes(Set(verdicts.keys))
  }

  /// The verdict that refuses the entry at `components`: its outermost refused folder's (its
  /// own when it is one), or nil when no folder it is in or is is refused.
  func verdict(for components: [String]) -> Verdict? {
    guard !verdicts.isEmpty else { return nil }
    if let length = prefixes.prefixLength(of: components) { return verdicts[Array(components.prefix(length))] }
    return verdicts[components]
  }
}
