import Foundation
import System
import UniformTypes

/// What `share types accept|exclude|forget|reset` did: to each type, to the file, and to a
/// running daemon. Its JSON is `--json`'s contract.
package struct DeclarationsChange: Sendable, Codable, Equatable {
  /// `accept`, `exclude`, `forget` or `reset`.
  package var action: String
  /// Per type named, in order (none for `reset`).
  package var types: [TypeEditOutcome]
  /// The home's declarations file.
  package var path: String
  /// Whether the file was replaced (or, by `reset`, removed).
  package var written: Bool
  /// Where the declarations in force come from now: `path`, or `built-in default`.
  package var source: String
  /// The file replaced was not one share wrote: its comments and ignored keys are gone.
  package var replacedHandWritten: Bool
  /// Legal but probably unintended things in the declarations now (`share types` shows them too).
  package var warnings: [String]
  /// `reloaded`, `not-running` (the next start reads the file), `failed` (see `daemonError`),
  /// or `not-told` (nothing changed).
  package var daemon: String
  package var daemonError: String?
}

/// A home's `Declarations.plist`: the one code that changes it.
///
/// An edit starts from the declarations in force (the home's file, or the built-in default when
/// it has none, so `share types exclude .iso` on a fresh home keeps the rest of the default),
/// and the whole change is load-modify-save under an exclusive lock on `declarations.lock`
/// beside the file: two edits at once both land. What is written is encoded with
/// `PropertyListEncoder`, read back and validated exactly as the daemon reads it
/// (`HomeDeclarations`) before it replaces the file atomically and durably (`writeDurably`), so
/// an edit that fails leaves the file as it was. A damaged file is reported, never edited: it
/// is fixed by hand or `reset`. The daemon reads the file without the lock: it sees the old one
/// or the new one.
package struct DeclarationsStore: Sendable {
  package let file: URL
  /// The lock every writer takes; it is never removed (a lock on a renamed file would be on the old inode).
  package let lockFile: URL
  private let registry: @Sendable () -> TypeRegistry

  package init(paths: SharePaths) {
    self.init(file: paths.declarations)
  }

  /// A store for `file`; `registry` is the system's type registry (tests may give their own).
  init(file: URL, registry: @escaping @Sendable () -> TypeRegistry = { TypeRegistry.system() }) {
    self.file = file
    lockFile = file.deletingLastPathComponent().appendingPathComponent("declarations.lock")
    self.registry = registry
  }

  /// Applies `action` to the types `queries` name (identifiers, `.ext`, MIME types).
  /// - Throws: `ShareError.configuration` for a type nobody knows, an accept that an exclusion
  ///   overrides, a damaged file, or a failed write; nothing is written then.
  package func edit(_ action: DeclarationEdit.Action, _ queries: [String]) throws(ShareError) -> DeclarationsChange {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      let base = registry()
      let (current, policy, original) = try readCurrent(base)
      var types: [TypeIdentifier] = []
      var arguments: [String] = []
      var named: [(query: String, type: TypeIdentifier)] = []
      for query in queries {
        let type: TypeIdentifier
        do throws(TypeEditError) {
          type = try policy.registry.identifier(forQuery: query)
        } catch {
          throw .configuration(error.message)
        }
        named.append((query, type))
        if !types.contains(type) {
          types.append(type)
          arguments.append(query)
        }
      }
      let edited: EditedDeclarations
      do throws(TypeEditError) {
        edited = try policy.applying(DeclarationEdit(action: action, types: types, arguments: arguments), base: base)
      } catch {
        throw .configuration(error.message)
      }
      // One outcome per argument, as given: two that name one type (`image/png .png`) each get
      // the type's (review 20: the second was left out, and a script could not match them).
      let outcomes = named.compactMap { query, type -> TypeEditOutcome? in
        guard var outcome = edited.outcomes.first(where: { $0.type == type }) else { return nil }
        outcome.argument = query
        return outcome
      }
      var change = DeclarationsChange(
        action: action.rawValue, types: outcomes, path: file.path, written: false, source: current.source,
        replacedHandWritten: false, warnings: edited.policy.warnings, daemon: "not-told")
      guard edited.changed else { return change }
      try write(edited.declarations, base: base)
      change.written = true
      change.source = file.path
      change.replacedHandWritten = original.map { !Declarations.isWrittenByShare($0) } ?? false
      return change
    }
  }

  /// Removes the home's file, so the built-in default is in force again.
  package func reset() throws(ShareError) -> DeclarationsChange {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      var change = DeclarationsChange(
        action: "reset", types: [], path: file.path, written: false, source: Declarations.builtinDefault.source,
        replacedHandWritten: false, warnings: [], daemon: "not-told")
      guard FileManager.default.fileExists(atPath: file.path) else { return change }
      let original = FileManager.default.contents(atPath: file.path)
      do {
        try FileSystem.remove(file.path)
        try FileSystem.syncDirectory(file.deletingLastPathComponent().path)
      } catch {
        throw .configuration("cannot remove \(file.path): \(error)")
      }
      change.written = true
      change.replacedHandWritten = original.map { !Declarations.isWrittenByShare($0) } ?? false
      return change
    }
  }

  // MARK: Reading and writing (with the lock held)

  /// The declarations in force, their policy, and the file's bytes when there is a file.
  private func readCurrent(_ base: TypeRegistry) throws(ShareError) -> (Declarations, TypePolicy, Data?) {
    do {
      let declarations = try HomeDeclarations.read(file)
      let policy = try HomeDeclarations.policy(declarations, registry: base)
      return (declarations, policy, FileManager.default.contents(atPath: file.path))
    } catch {
      throw .configuration(
        "cannot change the declarations: \(error); fix \(file.path) by hand, or go back to the built-in default with 'share types reset'")
    }
  }

  /// Encodes, validates as the daemon will read it, and replaces the file.
  private func write(_ declarations: Declarations, base: TypeRegistry) throws(ShareError) {
    var declarations = declarations
    declarations.source = file.path
    let data: Data
    do {
      data = try declarations.propertyList()
    } catch {
      throw .configuration("refusing to write the declarations: \(error)")
    }
    do {
      _ = try HomeDeclarations.policy(HomeDeclarations.parse(data, as: file), registry: base)
    } catch {
      throw .configuration("refusing to write declarations a receiver would not read: \(error)")
    }
    do {
      try FileSystem.makeDirectories(file.deletingLastPathComponent().path, permissions: FilePermissions(rawValue: 0o700))
      try writeDurably(data, to: file.path)
    } catch {
      throw .configuration("cannot write \(file.path): \(error)")
    }
  }

}

extension DeclarationsChange {
  /// Tells the home's running daemon to re-read its declarations, when the file changed; no
  /// daemon is fine (the next start reads the file). Records the outcome in `daemon`.
  package mutating func tellDaemon(paths: SharePaths) {
    guard written else { return }
    do {
      daemon = try ControlClient.sendIfRunning(.reload, paths: paths) == nil ? "not-running" : "reloaded"
    } catch {
      daemon = "failed"
      daemonError = "\(error)"
    }
  }
}
