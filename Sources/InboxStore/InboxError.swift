import Foundation
import System
import TextEscaping

/// What went wrong with the Inbox or its staging area. `description` is one sentence for a
/// person; `detail` adds the system call and errno.
package enum InboxError: Error, Sendable, CustomStringConvertible {
  /// A system call failed on a path.
  case system(call: String, path: String, errno: Errno)
  /// The disk (or the user's quota) is full.
  case diskFull(path: String)
  /// No item of that name is in the Inbox.
  case noSuchItem(String)
  /// A name given back is one item's name as it is and another's as share shows names (escaped):
  /// a sender can name an item so that pasting another's listed name reaches it (review 14).
  case ambiguousName(String, asIs: String, asShown: String)
  /// The destination of a move already exists, and nothing is ever overwritten.
  case destinationExists(String)
  /// Something on disk is not what share put there.
  case unexpected(String)

  /// Names and paths in it are escaped (a name a person typed, or a path in a home whose
  /// folders have odd names, reaches a terminal).
  package var description: String {
    switch self {
    case .system(let call, let rawPath, let code):
      let path = Self.shown(rawPath)
      if code == .readOnlyFileSystem { return "the file system holding \(path) is read-only" }
      if code == .permissionDenied || code == .notPermitted {
        return "cannot write to \(path): permission denied; check that the folder is writable"
      }
      return "\(call) failed on \(path): \(code)"
    case .diskFull(let path):
      return "the disk holding \(Self.shown(path)) is full; free some space and try again"
    case .noSuchItem(let name): return "no item named \(Escaping.quoted(name)) in the Inbox (see 'share inbox list')"
    case .ambiguousName(let name, let asIs, let asShown):
      return "\(Escaping.quoted(name)) is the name of one item as it is and of another as share shows names; "
        + "to be sure which is meant, write each backslash as \\u{5C}: \(Self.unambiguous(asIs)) or \(Self.unambiguous(asShown))"
    case .destinationExists(let path): return "\(Self.shown(path)) already exists; share never overwrites"
    case .unexpected(let what): return what
    }
  }

  /// What a peer may be told: the same failure without paths (they reveal the receiver's user
  /// name and layout) and without advice meant for the receiver's owner.
  package var peerDescription: String {
    switch self {
    case .diskFull: return "the receiver's disk is full"
    case .system(_, _, let code)
    where code == .readOnlyFileSystem || code == .permissionDenied || code == .notPermitted:
      return "the receiver cannot write to its Inbox"
    case .system(let call, _, let code): return "the receiver's \(call) failed (\(code))"
    case .noSuchItem, .ambiguousName, .destinationExists, .unexpected: return "the receiver could not store it"
    }
  }

  /// `name` as share shows it, with each backslash written `\u{5C}`: a spelling that names it
  /// alone when it is given back.
  static func unambiguous(_ name: String) -> String {
    "\"" + Escaping.escaped(name, maximumLength: 4096).replacingOccurrences(of: "\\\\", with: "\\u{5C}") + "\""
  }

  /// A path as messages show it: escaped, whole.
  static func shown(_ path: String) -> String { Escaping.escaped(path, maximumLength: 4096) }

  /// The C-level detail for `--verbose`.
  package var detail: String {
    switch self {
    case .system(let call, let path, let code):
      return "\(call)(\(Self.shown(path))): errno \(code.rawValue) (\(code))"
    default: return description
    }
  }

  /// Maps an errno from `call` on `path`, turning ENOSPC and EDQUOT into `.diskFull`.
  static func from(_ call: String, _ path: String, _ code: Errno) -> InboxError {
    if code == .noSpace || code == .diskQuotaExceeded { return .diskFull(path: path) }
    return .system(call: call, path: path, errno: code)
  }

  /// Runs `body`, whose system calls concern `path`, mapping a failure with `from(call, path, _)`.
  /// The path is only made when it is needed: `URL.path` costs a few microseconds, and a
  /// received file passes here several times (bench/README.md, round eleven).
  static func attempt<Value>(_ call: String, _ path: @autoclosure () -> String, _ body: () throws(Errno) -> Value)
    throws(InboxError) -> Value
  {
    do {
      return try body()
    } catch {
      throw from(call, path(), error)
    }
  }
}
