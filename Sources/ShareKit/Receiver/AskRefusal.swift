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
  /// The receiver's owner (or its gatekeeper) declined the ask.
  case declined(String)

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
    case .declined(let message): return message
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

  var reason: String {
    switch self {
    case .unsafePath(let problem): return "unsafe path: \(problem)"
    case .duplicatePath: return "another entry has the same path"
    case .notFileOrFolder: return "a folder holds only files and folders"
    case .tooLarge(let size, let limit): return ItemRefusal.tooLarge(size: size, limit: limit).reason
    case .type(let verdict): return verdict.reason
    }
  }
}
