import InboxStore
import UniformTypes
import Wire

/// Why `AskDecision` refuses an offered item. Each reason reads as a sentence the sender sees.
enum ItemRefusal: Sendable, Equatable {
  /// The name cannot become a name in the Inbox (`InboxName.sanitize`).
  case unsafeName(InboxName.Problem)
  /// A folder offered without its list of entries.
  case folderWithoutEntries
  /// A URL or text item larger than `ReceivePolicy.maxInlineBytes` (or of unknown size).
  case inlineTooLarge(Wire.ItemKind, limit: Int64)
  /// An item larger than the receiver's largest item.
  case tooLarge(size: Int64, limit: Int64)
  /// The type rules refuse what the name (or kind) says.
  case type(Verdict)
  /// A folder none of whose files is accepted.
  case noFileAccepted(offered: Int)
  /// The Ask's accepted bytes add up past the receiver's limit per send.
  case overAskLimit(Int64)
  /// Taking the item would leave less than the reserve free on the disk.
  case noSpace(reserve: Int64)
  /// Its files would leave fewer than `reserve` files free to create on the Inbox's disk.
  case noFiles(reserve: Int64)
  /// The receiver's owner (or its gatekeeper) declined the ask.
  case declined(String)
  /// A version-control folder (`.git`, …): see `VersionControl`.
  case versionControl

  var reason: String {
    switch self {
    case .unsafeName(let problem): return "unsafe name: \(problem)"
    case .folderWithoutEntries: return "a folder without its entries"
    case .inlineTooLarge(let kind, let limit): return "a \(kind.rawValue) item is limited to \(formatBytes(limit))"
    case .tooLarge(let size, let limit):
      return "too large: \(formatBytes(size)) is over this receiver's limit of \(formatBytes(limit))"
    case .type(let verdict): return verdict.reason
    case .noFileAccepted(let offered): return "none of its \(offered) files is accepted"
    case .overAskLimit(let limit): return "the offer is over this receiver's limit of \(formatBytes(limit)) per send"
    case .noSpace(let reserve): return "not enough free space on the receiver (it keeps \(formatBytes(reserve)) free)"
    case .noFiles(let reserve): return "the receiver's disk has room for too few more files (it keeps room for \(reserve) free)"
    case .declined(let message): return message
    case .versionControl: return VersionControl.reason
    }
  }
}

/// Why `AskDecision` refuses one entry of an offered folder (the folder may still be taken).
enum EntryRefusal: Sendable, Equatable {
  /// A component of the relative path cannot become a name (`InboxName.sanitize(relativePath:)`).
  case unsafePath(InboxName.Problem)
  /// Another entry of the folder has the same (sanitized) path.
  case duplicatePath
  /// An entry that is a URL or a text.
  case notFileOrFolder
  /// A file larger than the receiver's largest item.
  case tooLarge(size: Int64, limit: Int64)
  /// The type rules refuse what the file's name says.
  case type(Verdict)
  /// Part of a version-control folder (`.git`, …, or a bare repository): see `VersionControl`.
  case versionControl

  var reason: String {
    switch self {
    case .unsafePath(let problem): return "unsafe path: \(problem)"
    case .duplicatePath: return "another entry has the same path"
    case .notFileOrFolder: return "a folder holds only files and folders"
    case .tooLarge(let size, let limit): return ItemRefusal.tooLarge(size: size, limit: limit).reason
    case .type(let verdict): return verdict.reason
    case .versionControl: return VersionControl.reason
    }
  }
}

/// The control folders of version-control systems, which no received folder may bring: git
/// runs commands its configuration names (`core.fsmonitor` at every `git status`, and so at a
/// git-aware shell prompt; `core.pager`, filters, diff drivers), and Mercurial and the others
/// alike. Review 17: a folder's `.git/config` ran the sender's command when git was run in it;
/// a folder item called `.git` made the whole Inbox a work tree with the sender's configuration.
/// A bare repository (a folder with `HEAD`, `objects/` and `refs/`) is one too, under any name:
/// git finds it when run inside it.
enum VersionControl {
  static let reason = "a version-control folder: git and its kind run commands its configuration names"

  /// The names of control folders (and of git's `.git` file, which points at one), compared
  /// without regard to case (a case-insensitive disk the item is moved to would find them).
  static let names: Set<String> = [".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", ".fslckout", "_fossil_"]

  static func isControlName(_ name: String) -> Bool { names.contains(name.lowercased()) }

  /// The folders among `entries` (by path, `[]` for the item itself) that are laid out as a git
  /// directory: `HEAD` a file, and `objects` and `refs` folders or a `commondir` file (which
  /// names where they, and the configuration, are: review 37).
  static func repositories(among entries: [(components: [String], isFolder: Bool)]) -> Set<[String]> {
    var heads = Set<[String]>()
    var objects = Set<[String]>()
    var refs = Set<[String]>()
    var commondirs = Set<[String]>()
    for entry in entries {
      guard let last = entry.components.last else { continue }
      let parent = Array(entry.components.dropLast())
      switch (last, entry.isFolder) {
      case ("HEAD", false): heads.insert(parent)
      case ("objects", true): objects.insert(parent)
      case ("refs", true): refs.insert(parent)
      case ("commondir", false): commondirs.insert(parent)
      default: break
      }
    }
    return heads.intersection(objects.intersection(refs).union(commondirs))
  }

  /// Whether an item of this name and kind, beside the Inbox's other items, could make the Inbox
  /// itself a git directory: a file `HEAD`, which git needs there with `objects` and `refs` or
  /// a `commondir`, each of which could come as an item of its own (review 37).
  static func marksGitDirectory(_ name: String, isFolder: Bool) -> Bool { name == "HEAD" && !isFolder }

  /// Whether the entry at `components` is part of a version-control folder, `repositories`
  /// looked up a component at a time: a copy of each prefix per entry cost the square of its
  /// depth (review 26: an Ask of 1,000 entries 2,040 folders deep took 46 s of CPU before
  /// anyone was asked).
  static func holds(_ components: [String], repositories: Prefixes) -> Bool {
    components.contains(where: isControlName) || repositories.containsPrefix(of: components)
  }

  /// Folder paths as a tree of numbered nodes (the root, `[]`, is 0), to find whether any
  /// proper prefix of a path is one of them in one walk down the path.
  struct Prefixes {
    private var children: [Step: Int] = [:]
    private var marked: Set<Int> = []

    private struct Step: Hashable {
      var parent: Int
      var name: String
    }

    init(_ paths: Set<[String]>) {
      for path in paths {
        var node = 0
        for name in path {
          let step = Step(parent: node, name: name)
          if let next = children[step] {
            node = next
          } else {
            node = children.count + 1
            children[step] = node
          }
        }
        marked.insert(node)
      }
    }

    /// Whether `components[..<i]` is one of the paths, for some `i` below its count.
    func containsPrefix(of components: [String]) -> Bool { prefixLength(of: components) != nil }

    /// The least `i` below `components.count` for which `components[..<i]` is one of the
    /// paths, or nil.
    func prefixLength(of components: [String]) -> Int? {
      guard !marked.isEmpty, !components.isEmpty else { return nil }
      var node = 0
      for (length, name) in components.dropLast().enumerated() {
        if marked.contains(node) { return length }
        guard let next = children[Step(parent: node, name: name)] else { return nil }
        node = next
      }
      return marked.contains(node) ? components.count - 1 : nil
    }
  }
}
