import Foundation
import Synchronization
import TextEscaping

/// Types, their conformance graph and their tags: built-in declarations, declarations added
/// from a declarations file, and dynamic types for every other MIME type.
///
/// Lookups are pure and cost microseconds: dictionary hits, then a breadth-first walk of a
/// graph a few levels deep. Immutable after init, so any thread may use one registry.
///
/// Precedence for a file name: declared extensions (a declarations file, then built-ins),
/// then shared-mime-info (literal names, `*.ext` globs, other globs), then `public.data`.
/// For a MIME type: declared MIME tags, then shared-mime-info aliases, then a dynamic
/// identifier `dyn.mime.<type>/<subtype>`.
package final class TypeRegistry: Sendable {
  /// Where shared-mime-info lives on Debian and most Linux systems.
  package static let defaultMIMEDirectory = URL(fileURLWithPath: "/usr/share/mime", isDirectory: true)

  private let declarations: [TypeIdentifier: TypeDeclaration]
  /// Declared identifiers in declaration order (built-ins, then each added batch).
  package let declaredIdentifiers: [TypeIdentifier]
  /// The declared types an extension names, the first preferred: one, or several built-ins
  /// that share it (`key`: a PEM key, a Keynote presentation).
  private let extensionIndex: [String: [TypeIdentifier]]
  private let mimeIndex: [String: TypeIdentifier]
  /// Whole file names built-in types claim (`go.mod`).
  private let filenameIndex: [String: TypeIdentifier]
  private let maxExtensionLabels: Int
  let mimeDatabase: SharedMimeInfo?
  /// Each declared type's ancestors, once asked (every item's verdict asks of several): the
  /// graph never changes. Dynamic types are not kept (a peer may name any number of them).
  private let ancestorsOfDeclared = Mutex<[TypeIdentifier: [TypeIdentifier]]>([:])

  private init(
    declarations: [TypeIdentifier: TypeDeclaration], order: [TypeIdentifier],
    extensionIndex: [String: [TypeIdentifier]], mimeIndex: [String: TypeIdentifier],
    mimeDatabase: SharedMimeInfo?
  ) {
    self.declarations = declarations
    self.declaredIdentifiers = order
    self.extensionIndex = extensionIndex
    self.mimeIndex = mimeIndex
    self.mimeDatabase = mimeDatabase
    self.filenameIndex = Dictionary(
      declarations.values.flatMap { declaration in declaration.filenames.map { ($0, declaration.identifier) } },
      uniquingKeysWith: { first, _ in first })
    self.maxExtensionLabels = extensionIndex.keys.reduce(1) { max($0, $1.split(separator: ".").count) }
  }

  /// A registry of the built-in types plus the shared-mime-info database under `mimeDirectory`.
  ///
  /// The registry for the default directory is built once per process and shared; other
  /// directories are read on each call. A missing database leaves the built-ins alone.
  package static func system(mimeDirectory: URL? = nil) -> TypeRegistry {
    guard let mimeDirectory, mimeDirectory.standardizedFileURL.path != defaultMIMEDirectory.path else {
      return sharedSystem
    }
    return load(mimeDirectory: mimeDirectory)
  }

  /// A registry of the built-in types plus the shared-mime-info database under `mimeDirectory`,
  /// always read afresh (what `system(mimeDirectory:)` costs the first time).
  package static func load(mimeDirectory: URL) -> TypeRegistry {
    TypeRegistry(builtinsWith: SharedMimeInfo(directory: mimeDirectory.path))
  }

  /// The built-in types only, without any shared-mime-info database (for tests and predictions
  /// that must not depend on the machine).
  package static let builtinOnly = TypeRegistry(builtinsWith: nil)

  private static let sharedSystem = TypeRegistry(
    builtinsWith: SharedMimeInfo(directory: defaultMIMEDirectory.path))

  private convenience init(builtinsWith database: SharedMimeInfo?) {
    var declarations: [TypeIdentifier: TypeDeclaration] = [:]
    var order: [TypeIdentifier] = []
    var extensionIndex: [String: [TypeIdentifier]] = [:]
    var mimeIndex: [String: TypeIdentifier] = [:]
    for declaration in BuiltinTypes.all {
      declarations[declaration.identifier] = declaration
      order.append(declaration.identifier)
      for ext in declaration.filenameExtensions {
        extensionIndex[ext, default: []].append(declaration.identifier)
      }
      for mime in declaration.mimeTypes where mimeIndex[mime] == nil {
        mimeIndex[mime] = declaration.identifier
      }
    }
    self.init(
      declarations: declarations, order: order, extensionIndex: extensionIndex, mimeIndex: mimeIndex,
      mimeDatabase: database)
  }

  /// Whether a shared-mime-info database was found.
  package var hasSharedMimeInfo: Bool { mimeDatabase != nil }

  /// The directory of the shared-mime-info database in use, if any.
  package var mimeDirectory: String? { mimeDatabase?.directory }

  // MARK: - Adding declarations

  /// A new registry with `additions` declared on top of this one.
  ///
  /// Each addition must have a reverse-DNS identifier not yet declared, conform to at least one
  /// type known here or among `additions`, form no cycle, and carry well-formed tags. Its tags
  /// take precedence over built-in and shared-mime-info tags.
  /// - Throws: `TypeRegistryError` naming the first offending addition by index.
  package func adding(_ additions: [TypeDeclaration]) throws(TypeRegistryError) -> TypeRegistry {
    try checkEach(additions)
    let newIDs = Set(additions.map(\.identifier))
    for (index, declaration) in additions.enumerated() {
      for parent in declaration.conformsTo where !newIDs.contains(parent) && !isKnown(parent) {
        throw TypeRegistryError(index: index, identifier: declaration.identifier, problem: .unknownParent(parent))
      }
    }
    // Cycles can only run through new declarations: existing ones never point at them.
    let parentsOf = Dictionary(uniqueKeysWithValues: additions.map { ($0.identifier, $0.conformsTo) })
    for (index, declaration) in additions.enumerated() {
      if let cycle = Self.cycle(from: declaration.identifier, parents: parentsOf) {
        throw TypeRegistryError(index: index, identifier: declaration.identifier, problem: .cycle(cycle))
      }
    }
    return try indexing(additions)
  }

  /// Each addition on its own: a new reverse-DNS identifier, declared once, with a parent and
  /// well-formed tags.
  private func checkEach(_ additions: [TypeDeclaration]) throws(TypeRegistryError) {
    var seen: [TypeIdentifier: Int] = [:]
    for (index, declaration) in additions.enumerated() {
      let id = declaration.identifier
      func fail(_ problem: TypeRegistryError.Problem) -> TypeRegistryError {
        TypeRegistryError(index: index, identifier: id, problem: problem)
      }
      guard id.isReverseDNS else { throw fail(.invalidIdentifier) }
      if let first = seen[id] { throw fail(.duplicate(firstIndex: first)) }
      if let existing = declarations[id] {
        throw fail(.alreadyDeclared(existing.origin))
      }
      seen[id] = index
      guard !declaration.conformsTo.isEmpty else { throw fail(.noParent) }
      for ext in declaration.filenameExtensions where !Self.isValidExtension(ext) {
        throw fail(.invalidExtension(ext))
      }
      for mime in declaration.mimeTypes where !MIMEType.isValid(mime) {
        throw fail(.invalidMIMEType(mime))
      }
    }
  }

  /// This registry with `additions` declared and their tags indexed (theirs win over built-in
  /// and shared-mime-info tags); two additions may not claim one tag.
  private func indexing(_ additions: [TypeDeclaration]) throws(TypeRegistryError) -> TypeRegistry {
    var declarations = self.declarations
    var order = declaredIdentifiers
    var extensionIndex = self.extensionIndex
    var mimeIndex = self.mimeIndex
    var claimedExtensions: [String: TypeIdentifier] = [:]
    var claimedMIMETypes: [String: TypeIdentifier] = [:]
    for (index, declaration) in additions.enumerated() {
      let id = declaration.identifier
      for ext in declaration.filenameExtensions {
        if let other = claimedExtensions[ext], other != id {
          throw TypeRegistryError(index: index, identifier: id, problem: .extensionClaimedTwice(ext, other))
        }
        claimedExtensions[ext] = id
        extensionIndex[ext] = [id]
      }
      for mime in declaration.mimeTypes {
        if let other = claimedMIMETypes[mime], other != id {
          throw TypeRegistryError(index: index, identifier: id, problem: .mimeTypeClaimedTwice(mime, other))
        }
        claimedMIMETypes[mime] = id
        mimeIndex[mime] = id
      }
      declarations[id] = declaration
      order.append(id)
    }
    return TypeRegistry(
      declarations: declarations, order: order, extensionIndex: extensionIndex, mimeIndex: mimeIndex,
      mimeDatabase: mimeDatabase)
  }

  /// A lower-case extension without a leading dot, slash, blank or control character.
  static func isValidExtension(_ ext: String) -> Bool {
    guard !ext.isEmpty, ext.utf8.count <= 64, !ext.hasPrefix("."), !ext.hasSuffix(".") else { return false }
    return ext.unicodeScalars.allSatisfy { scalar in
      scalar.value > 0x20 && scalar.value != 0x7F && scalar != "/" && scalar != "\\" && scalar != "*"
        && scalar != "?" && !(0x80...0x9F).contains(scalar.value)
    }
  }

  /// A conformance cycle reachable from `start` through `parents`, as a path that ends where it starts.
  private static func cycle(from start: TypeIdentifier, parents: [TypeIdentifier: [TypeIdentifier]]) -> [TypeIdentifier]? {
    var path: [TypeIdentifier] = []
    var onPath = Set<TypeIdentifier>()
    var done = Set<TypeIdentifier>()
    func visit(_ id: TypeIdentifier) -> [TypeIdentifier]? {
      if onPath.contains(id) {
        let from = path.firstIndex(of: id) ?? 0
        return Array(path[from...]) + [id]
      }
      guard !done.contains(id), let next = parents[id] else { return nil }
      path.append(id)
      onPath.insert(id)
      for parent in next {
        if let found = visit(parent) { return found }
      }
      path.removeLast()
      onPath.remove(id)
      done.insert(id)
      return nil
    }
    guard let found = visit(start), found.first == start else { return nil }
    return found
  }

  // MARK: - Declarations and conformance

  /// Whether `identifier` names a declared type or a dynamic type for a well-formed MIME type.
  package func isKnown(_ identifier: TypeIdentifier) -> Bool {
    declarations[identifier] != nil || identifier.dynamicMIMEType != nil
  }

  /// The canonical identifier for `identifier`: itself when declared; for a dynamic identifier
  /// whose MIME type has a declared type (or is an alias), that type; nil when unknown.
  package func canonicalIdentifier(_ identifier: TypeIdentifier) -> TypeIdentifier? {
    if declarations[identifier] != nil { return identifier }
    guard let mime = identifier.dynamicMIMEType else { return nil }
    return type(forMIMEType: mime)
  }

  /// The declaration of a type; dynamic types get one synthesised from shared-mime-info.
  /// Nil for an identifier that is neither declared nor dynamic.
  package func declaration(for identifier: TypeIdentifier) -> TypeDeclaration? {
    if let declared = declarations[identifier] { return declared }
    guard let mime = identifier.dynamicMIMEType else { return nil }
    let canonical = mimeDatabase?.canonical(mime) ?? mime
    if canonical != mime || mimeIndex[mime] != nil {
      return declaration(for: type(forMIMEType: mime))
    }
    let known = mimeDatabase?.knownTypes.contains(mime) ?? false
    return TypeDeclaration(
      identifier: identifier, description: mimeDatabase?.comment(for: mime) ?? mime, conformsTo: dynamicParents(of: mime),
      filenameExtensions: mimeDatabase?.extensions(for: mime) ?? [],
      mimeTypes: [mime] + (mimeDatabase?.aliases(of: mime) ?? []),
      origin: known
        ? TypeOrigin(kind: .sharedMimeInfo, source: mimeDatabase?.directory) : .dynamic)
  }

  /// The direct parents of a type (empty for `public.item` and unknown identifiers).
  package func parents(of identifier: TypeIdentifier) -> [TypeIdentifier] {
    if let declared = declarations[identifier] { return declared.conformsTo }
    guard let mime = identifier.dynamicMIMEType else { return [] }
    let resolved = type(forMIMEType: mime)
    if resolved != identifier { return parents(of: resolved) }
    return dynamicParents(of: mime)
  }

  /// Whether `identifier` is `other` or reaches it through its conformance graph.
  package func conforms(_ identifier: TypeIdentifier, to other: TypeIdentifier) -> Bool {
    identifier == other || ancestors(of: identifier).contains(other)
  }

  /// Every type `identifier` conforms to, nearest first (breadth-first), without itself.
  package func ancestors(of identifier: TypeIdentifier) -> [TypeIdentifier] {
    let declared = declarations[identifier] != nil
    if declared, let known = ancestorsOfDeclared.withLock({ $0[identifier] }) { return known }
    let found = searchAncestors(of: identifier)
    if declared { ancestorsOfDeclared.withLock { $0[identifier] = found } }
    return found
  }

  private func searchAncestors(of identifier: TypeIdentifier) -> [TypeIdentifier] {
    var queue = [identifier]
    var seen: Set<TypeIdentifier> = [identifier]
    var head = 0
    while head < queue.count {
      let current = queue[head]
      head += 1
      for parent in parents(of: current) where seen.insert(parent).inserted {
        queue.append(parent)
      }
    }
    return Array(queue.dropFirst())
  }

  /// The human description of a type, or its identifier when it has none; escaped and cut to 80
  /// characters, since it goes into verdict reasons and a declarations file may hold anything
  /// (fuzz finding F3: a description with escape sequences reached reasons raw).
  package func describe(_ identifier: TypeIdentifier) -> String {
    Escaping.escaped(declaration(for: identifier)?.description ?? identifier.rawValue, maximumLength: 80)
  }

  /// Whether content sniffing positively recognises `identifier` (see `TypeDeclaration.recognizedByContent`).
  func isRecognizedByContent(_ identifier: TypeIdentifier) -> Bool {
    declarations[identifier]?.recognizedByContent ?? false
  }

  /// Whether a file of `identifier`, or of a type it conforms to, may be plain text (see
  /// `TypeDeclaration.hasTextForm`).
  func hasTextForm(_ identifier: TypeIdentifier) -> Bool {
    ([identifier] + ancestors(of: identifier)).contains { declarations[$0]?.hasTextForm ?? false }
  }

  // MARK: - Tags

  /// The type for a file name: from its extension(s), then shared-mime-info; `public.data`
  /// when nothing matches. Only the last path component counts; trailing dots and blanks are
  /// ignored (`evil.desktop. ` is a desktop entry); a leading dot does not start an extension.
  package func type(forFilename name: String) -> TypeIdentifier {
    types(forFilename: name)[0]
  }

  /// Every type a file name may mean, the name stage's answer first: the built-in type a whole
  /// name means (`go.mod`), or the declared types its extension names, then what shared-mime-info says besides (`*.key`: a PEM key, and a
  /// Keynote presentation; `*.ts`: TypeScript, and an MPEG transport stream or a Qt Linguist
  /// translation), or, for an extension nobody declared, shared-mime-info's globs of the best
  /// weight (`*.otf` before share declared it). The content settles which
  /// (`TypePolicy.settledNameType`), but for an extension a built-in type is the only meaning of
  /// (`BuiltinTypes.soleMeaningExtensions`). Never empty.
  package func types(forFilename name: String) -> [TypeIdentifier] {
    let base = Self.classifiableBaseName(name)
    guard !base.isEmpty else { return [.data] }
    if let id = filenameIndex[base] { return [id] + sharedMimeInfoTypes(of: base, besides: [id]) }
    for (_, lower) in SharedMimeInfo.suffixes(base, maxLabels: maxExtensionLabels) {
      if let ids = extensionIndex[lower] {
        return BuiltinTypes.soleMeaningExtensions.contains(lower) ? ids : ids + sharedMimeInfoTypes(of: base, besides: ids)
      }
    }
    let found = sharedMimeInfoTypes(of: base, besides: [])
    return found.isEmpty ? [.data] : found
  }

  /// The types shared-mime-info's best match for `base` gives, in its order, less those a
  /// `declared` type is or conforms to: `*.gem` is a tar archive to shared-mime-info, and a Ruby
  /// gem, which is one, says more.
  private func sharedMimeInfoTypes(of base: String, besides declared: [TypeIdentifier]) -> [TypeIdentifier] {
    var found: [TypeIdentifier] = []
    for mime in mimeDatabase?.mimeTypes(forBaseName: base) ?? [] {
      let id = type(forMIMEType: mime)
      if !found.contains(id), !declared.contains(where: { conforms($0, to: id) }) { found.append(id) }
    }
    return found
  }

  /// The type for a filename extension without the dot (`png`, `tar.gz`); `public.data` if unknown.
  package func type(forFilenameExtension ext: String) -> TypeIdentifier {
    let lower = ext.lowercased()
    if let id = extensionIndex[lower]?.first { return id }
    if let mime = mimeDatabase?.mimeType(forBaseName: "x." + ext) { return type(forMIMEType: mime) }
    return .data
  }

  /// The type for a MIME type (parameters ignored, aliases resolved); a dynamic identifier when
  /// no declaration names it; `public.data` when it is not a well-formed MIME type.
  package func type(forMIMEType mimeType: String) -> TypeIdentifier {
    let mime = MIMEType.normalized(mimeType)
    if let id = mimeIndex[mime] { return id }
    guard MIMEType.isValid(mime) else { return .data }
    if let canonical = mimeDatabase?.aliases[mime] {
      if let id = mimeIndex[canonical] { return id }
      return .dynamic(mimeType: canonical)
    }
    return .dynamic(mimeType: mime)
  }

  /// The preferred MIME type of a type (its first MIME tag, or a dynamic type's MIME type).
  package func preferredMIMEType(for identifier: TypeIdentifier) -> String? {
    declarations[identifier]?.mimeTypes.first ?? identifier.dynamicMIMEType
  }

  /// The extension a name's type was found by, for messages: the longest dotted suffix known
  /// to the registry, else the last one; nil when the name has no extension.
  package func filenameExtension(of name: String) -> String? {
    let base = Self.classifiableBaseName(name)
    let suffixes = SharedMimeInfo.suffixes(base, maxLabels: maxExtensionLabels)
    for (ext, lower) in suffixes where extensionIndex[lower] != nil { return ext }
    return suffixes.last?.0
  }
}
