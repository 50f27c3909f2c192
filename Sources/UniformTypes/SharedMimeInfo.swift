import Synchronization
import System

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The parts of a freedesktop shared-mime-info database (`/usr/share/mime`) that share uses:
/// `globs2` (filename patterns), `subclasses` (`sub-class-of`) and `aliases`.
///
/// Parsed once, byte by byte, into dictionaries (the three files total about 2,000 lines on
/// Debian 12; parsing takes well under a millisecond, see `TypeBenchmark`). Malformed lines
/// are skipped: the database is advisory, built-in declarations always win. Immutable after
/// init, so any thread may read it.
final class SharedMimeInfo: Sendable {
  /// One `globs2` line.
  struct Glob: Sendable {
    var weight: Int
    var mimeType: String
    var pattern: String
    var caseSensitive: Bool
  }

  let directory: String
  /// Literal file names (no wildcard), lower-cased unless case-sensitive.
  let literals: [String: Glob]
  /// `*.ext` patterns keyed by `ext` (lower-cased): the heaviest, first in the file on a tie.
  let extensions: [String: Glob]
  /// For an `ext` that several MIME types claim with the same, highest weight (`*.otf`: an
  /// OpenDocument formula template and `font/otf`), all of them in file order.
  let ties: [String: [String]]
  /// Case-sensitive `*.ext` patterns keyed by `ext` as written.
  let caseSensitiveExtensions: [String: Glob]
  /// Other patterns, matched with fnmatch(3).
  let patterns: [Pattern]

  /// A pattern other than a literal name or `*.ext`, with what every name it matches must start
  /// and end with (its literal bytes before the first wildcard and after the last): most names
  /// are told apart by those before fnmatch(3) is called (5,000 names of one send called it 17
  /// times each, twice, converting both strings to C each time).
  struct Pattern: Sendable {
    var glob: Glob
    var prefix: [UInt8]
    var suffix: [UInt8]
    var cString: [CChar]

    init(_ glob: Glob) {
      self.glob = glob
      let bytes = Array(glob.pattern.utf8)
      // A backslash escapes what follows in fnmatch(3): such a pattern is not cut short.
      let escaped = bytes.contains(UInt8(ascii: "\\"))
      let wildcards: [UInt8] = [UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "]")]
      prefix = escaped ? [] : Array(bytes.prefix { !wildcards.contains($0) })
      suffix = escaped ? [] : Array(bytes.reversed().prefix { !wildcards.contains($0) }.reversed())
      if prefix.count == bytes.count { suffix = [] }
      cString = Array(glob.pattern.utf8CString)
    }

    /// Whether `name` (its bytes, and as a C string) matches the pattern.
    func matches(_ bytes: [UInt8], _ cName: [CChar]) -> Bool {
      guard bytes.count >= prefix.count + suffix.count, bytes.starts(with: prefix), bytes.suffix(suffix.count).elementsEqual(suffix)
      else { return false }
      return fnmatch(cString, cName, 0) == 0
    }
  }
  /// MIME type → the MIME types it is a sub-class of.
  let subclasses: [String: [String]]
  /// Alias → canonical MIME type.
  let aliases: [String: String]
  /// Every canonical MIME type the database mentions.
  let knownTypes: Set<String>
  /// The comments read so far, by MIME type (a verdict's reason names its type for every item).
  private let comments = Mutex<[String: String?]>([:])
  /// The longest extension (in dot-separated labels) among `extensions`.
  let maxExtensionLabels: Int

  /// Reads the three files under `directory`; a missing file counts as empty.
  /// Returns nil when none of them could be read (no database installed).
  init?(directory: String) {
    let globsText = Self.read(directory + "/globs2")
    let subclassText = Self.read(directory + "/subclasses")
    let aliasText = Self.read(directory + "/aliases")
    guard globsText != nil || subclassText != nil || aliasText != nil else { return nil }
    self.directory = directory

    var globs = GlobTable()
    Self.forEachLine(globsText ?? []) { globs.add(line: $0) }
    var known = globs.known
    var subclasses: [String: [String]] = [:]
    Self.forEachPair(subclassText ?? []) { child, parent in
      subclasses[child, default: []].append(parent)
      known.insert(child)
      known.insert(parent)
    }
    var aliases: [String: String] = [:]
    Self.forEachPair(aliasText ?? []) { alias, canonical in
      aliases[alias] = canonical
      known.insert(canonical)
    }
    literals = globs.literals
    extensions = globs.extensions
    ties = globs.ties
    caseSensitiveExtensions = globs.caseSensitiveExtensions
    patterns = globs.patterns
    self.subclasses = subclasses
    self.aliases = aliases
    knownTypes = known
    maxExtensionLabels = globs.maxLabels
  }

  /// Calls `body` with each line of two distinct MIME types separated by a space
  /// (`subclasses`: child, parent; `aliases`: alias, canonical).
  private static func forEachPair(_ text: [UInt8], _ body: (String, String) -> Void) {
    forEachLine(text) { line in
      let fields = fields(line, separator: UInt8(ascii: " "))
      guard fields.count == 2, let first = mimeType(fields[0]), let second = mimeType(fields[1]), first != second
      else { return }
      body(first, second)
    }
  }

  /// `globs2` as it is read, line by line, into the lookup tables.
  private struct GlobTable {
    var literals: [String: Glob] = [:]
    var extensions: [String: Glob] = [:]
    var ties: [String: [String]] = [:]
    var caseSensitiveExtensions: [String: Glob] = [:]
    var patterns: [Pattern] = []
    var known = Set<String>()
    var maxLabels = 1

    private static func isWildcard(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "[")
    }

    /// One `weight:mime:pattern[:flags[:...]]` line; a malformed one is skipped.
    mutating func add(line: ArraySlice<UInt8>) {
      let fields = SharedMimeInfo.fields(line, separator: UInt8(ascii: ":"))
      guard fields.count >= 3, let weight = SharedMimeInfo.integer(fields[0]),
        let mime = SharedMimeInfo.mimeType(fields[1]), !fields[2].isEmpty
      else { return }
      let patternBytes = fields[2]
      let pattern = String(decoding: patternBytes, as: UTF8.self)
      let caseSensitive =
        fields.count >= 4
        && SharedMimeInfo.fields(fields[3], separator: UInt8(ascii: ",")).contains { $0.elementsEqual("cs".utf8) }
      let glob = Glob(weight: weight, mimeType: mime, pattern: pattern, caseSensitive: caseSensitive)
      known.insert(mime)
      if !patternBytes.contains(where: Self.isWildcard) {
        let key = caseSensitive ? pattern : SharedMimeInfo.lowercasedFast(pattern)
        if literals[key].map({ $0.weight < weight }) ?? true { literals[key] = glob }
      } else if patternBytes.count > 2, patternBytes[patternBytes.startIndex] == UInt8(ascii: "*"),
        patternBytes[patternBytes.startIndex + 1] == UInt8(ascii: "."),
        !patternBytes.dropFirst(2).contains(where: Self.isWildcard)
      {
        add(glob, extension: patternBytes.dropFirst(2))
      } else {
        patterns.append(
          Pattern(caseSensitive ? glob : Glob(weight: weight, mimeType: mime, pattern: pattern.lowercased(), caseSensitive: false)))
      }
    }

    /// A `*.ext` glob. The file is sorted by weight, but the heaviest is kept explicitly.
    private mutating func add(_ glob: Glob, extension extBytes: ArraySlice<UInt8>) {
      let ext = String(decoding: extBytes, as: UTF8.self)
      if glob.caseSensitive {
        if caseSensitiveExtensions[ext].map({ $0.weight < glob.weight }) ?? true { caseSensitiveExtensions[ext] = glob }
      } else {
        SharedMimeInfo.add(glob, forExtension: SharedMimeInfo.lowercasedFast(ext), to: &extensions, ties: &ties)
      }
      maxLabels = max(maxLabels, extBytes.reduce(1) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) })
    }
  }

  /// Keeps the heaviest `*.ext` glob of an extension, and every MIME type tied at that weight.
  private static func add(
    _ glob: Glob, forExtension key: String, to extensions: inout [String: Glob], ties: inout [String: [String]]
  ) {
    if let current = extensions[key], current.weight == glob.weight {
      if current.mimeType != glob.mimeType, !(ties[key] ?? []).contains(glob.mimeType) {
        ties[key, default: [current.mimeType]].append(glob.mimeType)
      }
    } else if extensions[key].map({ $0.weight < glob.weight }) ?? true {
      extensions[key] = glob
      ties[key] = nil
    }
  }

  /// The canonical MIME type for `mimeType` (resolving one alias hop).
  func canonical(_ mimeType: String) -> String { aliases[mimeType] ?? mimeType }

  /// The MIME type for a base file name, or nil: literal names first, then `*.ext` patterns
  /// (heaviest, then longest), then the remaining patterns via fnmatch(3).
  func mimeType(forBaseName name: String) -> String? {
    mimeTypes(forBaseName: name).first
  }

  /// Every MIME type the best match for a base file name gives: one, or several when globs of
  /// the same weight claim its extension (file order; the content settles which). Empty when
  /// nothing matches.
  func mimeTypes(forBaseName name: String) -> [String] {
    let lower = Self.lowercasedFast(name)
    if let glob = literals[name] ?? literals[lower] { return [glob.mimeType] }
    var best: Glob?
    var bestKey: String?
    var bestLength = 0
    for (ext, extLower) in Self.suffixes(name, maxLabels: maxExtensionLabels) {
      let sensitive = caseSensitiveExtensions[ext]
      let candidate = sensitive ?? extensions[extLower]
      guard let candidate else { continue }
      if let current = best,
        candidate.weight < current.weight
          || (candidate.weight == current.weight && ext.count <= bestLength)
      {
        continue
      }
      best = candidate
      bestKey = sensitive == nil ? extLower : nil
      bestLength = ext.count
    }
    if let best {
      return bestKey.flatMap { ties[$0] } ?? [best.mimeType]
    }
    let forms = (sensitive: (Array(name.utf8), Array(name.utf8CString)), folded: (Array(lower.utf8), Array(lower.utf8CString)))
    for pattern in patterns {
      let form = pattern.glob.caseSensitive ? forms.sensitive : forms.folded
      if pattern.matches(form.0, form.1) { return [pattern.glob.mimeType] }
    }
    return []
  }

  /// The extensions (file name patterns `*.ext`) registered for `mimeType`, sorted.
  func extensions(for mimeType: String) -> [String] {
    var found = Set<String>()
    for (ext, glob) in extensions where glob.mimeType == mimeType { found.insert(ext) }
    for (ext, glob) in caseSensitiveExtensions where glob.mimeType == mimeType { found.insert(ext) }
    return found.sorted()
  }

  /// The English description of `mimeType`: the first `<comment>` without a language in
  /// `<directory>/<type>.xml`, which update-mime-database writes (`JET database`, `Jupyter
  /// Notebook`). Nil for a type the database does not know (the path is built only from those)
  /// or without a comment.
  func comment(for mimeType: String) -> String? {
    // Only the database's own types are read and kept: the cache stays as small as it is.
    guard knownTypes.contains(mimeType) else { return nil }
    if let known = comments.withLock({ $0[mimeType] }) { return known }
    let read = readComment(for: mimeType)
    comments.withLock { $0[mimeType] = .some(read) }
    return read
  }

  private func readComment(for mimeType: String) -> String? {
    guard knownTypes.contains(mimeType), !mimeType.contains(".."),
      let bytes = Self.read(directory + "/" + mimeType + ".xml")
    else { return nil }
    let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
    guard let open = text.firstRange(of: "<comment>"), let close = text[open.upperBound...].firstRange(of: "</comment>")
    else { return nil }
    let comment = text[open.upperBound..<close.lowerBound]
      .replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
      .replacing("&apos;", with: "'").replacing("&amp;", with: "&").trimmingBlanks()
    return comment.isEmpty ? nil : comment
  }

  /// The aliases of `mimeType`, sorted.
  func aliases(of mimeType: String) -> [String] {
    aliases.filter { $0.value == mimeType }.map(\.key).sorted()
  }

  /// Dot-separated suffixes of `name`, longest first, each as written and lower-cased;
  /// at most `maxLabels` labels; a leading dot (hidden file) does not start an extension.
  static func suffixes(_ name: String, maxLabels: Int) -> [(String, String)] {
    let bytes = name.utf8
    var dots: [String.Index] = []
    var index = bytes.endIndex
    while index > bytes.startIndex, dots.count < maxLabels {
      index = bytes.index(before: index)
      if bytes[index] == UInt8(ascii: "."), index > bytes.startIndex { dots.append(index) }
    }
    var result: [(String, String)] = []
    result.reserveCapacity(dots.count)
    for dot in dots.reversed() {
      let ext = String(decoding: bytes[bytes.index(after: dot)...], as: UTF8.self)
      guard !ext.isEmpty else { continue }
      result.append((ext, lowercasedFast(ext)))
    }
    return result
  }

  /// `lowercased()`, with a fast path for ASCII that is already lower-case.
  static func lowercasedFast(_ value: String) -> String {
    value.utf8.allSatisfy({ $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
      ? value : value.lowercased()
  }

  /// Calls `body` with each line of `bytes` that is neither blank nor a `#` comment.
  private static func forEachLine(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
    var start = 0
    for i in 0...bytes.count {
      guard i == bytes.count || bytes[i] == UInt8(ascii: "\n") else { continue }
      if i > start, bytes[start] != UInt8(ascii: "#") { body(bytes[start..<i]) }
      start = i + 1
    }
  }

  /// `line` split at every `separator` (empty fields kept).
  private static func fields(_ line: ArraySlice<UInt8>, separator: UInt8) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = line.startIndex
    for i in line.indices where line[i] == separator {
      result.append(line[start..<i])
      start = i + 1
    }
    result.append(line[start..<line.endIndex])
    return result
  }

  /// A non-negative decimal number of at most 9 digits.
  private static func integer(_ bytes: ArraySlice<UInt8>) -> Int? {
    guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
    var value = 0
    for byte in bytes {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
  }

  /// A well-formed MIME type, lower-cased, or nil.
  private static func mimeType(_ bytes: ArraySlice<UInt8>) -> String? {
    var slashes = 0
    var lowered = [UInt8]()
    lowered.reserveCapacity(bytes.count)
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): lowered.append(byte + 32)
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): lowered.append(byte)
      case UInt8(ascii: "/"):
        slashes += 1
        lowered.append(byte)
      default:
        guard "!#$&-^_.+".utf8.contains(byte) else { return nil }
        lowered.append(byte)
      }
    }
    guard slashes == 1, lowered.first != UInt8(ascii: "/"), lowered.last != UInt8(ascii: "/"), lowered.count <= 255 else {
      return nil
    }
    return String(decoding: lowered, as: UTF8.self)
  }

  /// The bytes of a small file, or nil if it cannot be read; read with open(2)/read(2) to avoid
  /// Foundation's start-up cost on the daemon's start path. Capped at 4 MiB.
  private static func read(_ path: String) -> [UInt8]? {
    guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
    return file.closeAfter { try? file.readAll(upTo: 4 << 20) }
  }

}
