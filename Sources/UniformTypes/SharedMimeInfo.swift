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
  /// `*.ext` patterns keyed by `ext` (lower-cased), highest weight first.
  let extensions: [String: Glob]
  /// Case-sensitive `*.ext` patterns keyed by `ext` as written.
  let caseSensitiveExtensions: [String: Glob]
  /// Other patterns, matched with fnmatch(3).
  let patterns: [Glob]
  /// MIME type → the MIME types it is a sub-class of.
  let subclasses: [String: [String]]
  /// Alias → canonical MIME type.
  let aliases: [String: String]
  /// Every canonical MIME type the database mentions.
  let knownTypes: Set<String>
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

    var literals: [String: Glob] = [:]
    var extensions: [String: Glob] = [:]
    var caseSensitiveExtensions: [String: Glob] = [:]
    var patterns: [Glob] = []
    var known = Set<String>()
    var maxLabels = 1
    for line in Self.lines(globsText ?? []) {
      // weight:mime:pattern[:flags[:...]]
      let fields = line.split(separator: ":", omittingEmptySubsequences: false)
      guard fields.count >= 3, let weight = Int(fields[0]) else { continue }
      let mime = MIMEType.normalized(String(fields[1]))
      let pattern = String(fields[2])
      guard MIMEType.isValid(mime), !pattern.isEmpty else { continue }
      let caseSensitive = fields.count >= 4 && fields[3].split(separator: ",").contains("cs")
      let glob = Glob(weight: weight, mimeType: mime, pattern: pattern, caseSensitive: caseSensitive)
      known.insert(mime)
      let wild = pattern.contains { $0 == "*" || $0 == "?" || $0 == "[" }
      if !wild {
        let key = caseSensitive ? pattern : pattern.lowercased()
        if literals[key].map({ $0.weight < weight }) ?? true { literals[key] = glob }
      } else if pattern.hasPrefix("*."), !pattern.dropFirst(2).contains(where: { "*?[".contains($0) }) {
        let ext = String(pattern.dropFirst(2))
        // The file is sorted by weight, but keep the heaviest explicitly.
        if caseSensitive {
          if caseSensitiveExtensions[ext].map({ $0.weight < weight }) ?? true {
            caseSensitiveExtensions[ext] = glob
          }
        } else {
          let key = ext.lowercased()
          if extensions[key].map({ $0.weight < weight }) ?? true { extensions[key] = glob }
        }
        maxLabels = max(maxLabels, ext.split(separator: ".").count)
      } else {
        patterns.append(caseSensitive ? glob : Glob(weight: weight, mimeType: mime, pattern: pattern.lowercased(), caseSensitive: false))
      }
    }

    var subclasses: [String: [String]] = [:]
    for line in Self.lines(subclassText ?? []) {
      let fields = line.split(separator: " ")
      guard fields.count == 2 else { continue }
      let child = MIMEType.normalized(String(fields[0]))
      let parent = MIMEType.normalized(String(fields[1]))
      guard MIMEType.isValid(child), MIMEType.isValid(parent), child != parent else { continue }
      subclasses[child, default: []].append(parent)
      known.insert(child)
      known.insert(parent)
    }
    var aliases: [String: String] = [:]
    for line in Self.lines(aliasText ?? []) {
      let fields = line.split(separator: " ")
      guard fields.count == 2 else { continue }
      let alias = MIMEType.normalized(String(fields[0]))
      let canonical = MIMEType.normalized(String(fields[1]))
      guard MIMEType.isValid(alias), MIMEType.isValid(canonical), alias != canonical else { continue }
      aliases[alias] = canonical
      known.insert(canonical)
    }
    self.literals = literals
    self.extensions = extensions
    self.caseSensitiveExtensions = caseSensitiveExtensions
    self.patterns = patterns
    self.subclasses = subclasses
    self.aliases = aliases
    self.knownTypes = known
    self.maxExtensionLabels = maxLabels
  }

  /// The canonical MIME type for `mimeType` (resolving one alias hop).
  func canonical(_ mimeType: String) -> String { aliases[mimeType] ?? mimeType }

  /// The MIME type for a base file name, or nil: literal names first, then `*.ext` patterns
  /// (heaviest, then longest), then the remaining patterns via fnmatch(3).
  func mimeType(forBaseName name: String) -> String? {
    let lower = name.lowercased()
    if let glob = literals[name] ?? literals[lower] { return glob.mimeType }
    var best: Glob?
    var bestLength = 0
    for (ext, extLower) in Self.suffixes(name, maxLabels: maxExtensionLabels) {
      let candidate = caseSensitiveExtensions[ext] ?? extensions[extLower]
      guard let candidate else { continue }
      if let current = best,
        candidate.weight < current.weight
          || (candidate.weight == current.weight && ext.count <= bestLength)
      {
        continue
      }
      best = candidate
      bestLength = ext.count
    }
    if let best { return best.mimeType }
    for glob in patterns where fnmatch(glob.pattern, glob.caseSensitive ? name : lower, 0) == 0 {
      return glob.mimeType
    }
    return nil
  }

  /// The extensions (file name patterns `*.ext`) registered for `mimeType`, sorted.
  func extensions(for mimeType: String) -> [String] {
    var found = Set<String>()
    for (ext, glob) in extensions where glob.mimeType == mimeType { found.insert(ext) }
    for (ext, glob) in caseSensitiveExtensions where glob.mimeType == mimeType { found.insert(ext) }
    return found.sorted()
  }

  /// The aliases of `mimeType`, sorted.
  func aliases(of mimeType: String) -> [String] {
    aliases.filter { $0.value == mimeType }.map(\.key).sorted()
  }

  /// Dot-separated suffixes of `name`, longest first, each as written and lower-cased;
  /// at most `maxLabels` labels; a leading dot (hidden file) does not start an extension.
  static func suffixes(_ name: String, maxLabels: Int) -> [(String, String)] {
    var result: [(String, String)] = []
    var index = name.endIndex
    var labels = 0
    var dots: [String.Index] = []
    while index > name.startIndex, labels < maxLabels {
      index = name.index(before: index)
      if name[index] == ".", index > name.startIndex {
        dots.append(index)
        labels += 1
      }
    }
    for dot in dots.reversed() {
      let ext = String(name[name.index(after: dot)...])
      guard !ext.isEmpty else { continue }
      result.append((ext, ext.lowercased()))
    }
    return result
  }

  /// The lines of a text file, without comments and blank lines.
  private static func lines(_ bytes: [UInt8]) -> [String] {
    var result: [String] = []
    result.reserveCapacity(bytes.count / 24)
    var start = 0
    for i in 0...bytes.count {
      guard i == bytes.count || bytes[i] == UInt8(ascii: "\n") else { continue }
      if i > start, bytes[start] != UInt8(ascii: "#") {
        result.append(String(decoding: bytes[start..<i], as: UTF8.self))
      }
      start = i + 1
    }
    return result
  }

  /// The bytes of a small file, or nil if it cannot be opened; read with open(2)/read(2)
  /// to avoid Foundation's start-up cost on the daemon's start path. Capped at 4 MiB.
  private static func read(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count < 4 << 20 {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
  }
}
