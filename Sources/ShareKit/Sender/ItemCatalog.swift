import Foundation
import Glibc
import InboxStore
import System
import TextEscaping
import UniformTypes
import Wire

/// Turns what a user named into items that describe themselves (name, kind, size) before any
/// byte is read, as UIActivityItemSource does. Folders are walked without following symlinks.
package struct ItemCatalog: Sendable {
  package private(set) var items: [OutgoingItem] = []
  /// What was left out, for the user: symlinks, special files, unreadable entries.
  package private(set) var notes: [String] = []
  /// How many entries of the folders named were left out (a note each): a send of them is then
  /// not everything asked, whatever the receivers store.
  package private(set) var skippedEntries = 0
  /// The files and folders added so far, by absolute path: the same one named twice is sent once.
  /// The paths added, as bytes: Swift's `String` equality is canonical equivalence, which
  /// made `café.txt` in NFC and in NFD, two files, one (review 20: the second was not sent).
  private var paths: Set<[UInt8]> = []

  /// Where relative paths start.
  private let workingDirectory = FileManager.default.currentDirectoryPath

  package init() {}

  /// `path` made absolute from `directory`, without `.` and `..` components or repeated and
  /// trailing slashes, as `URL.standardizedFileURL` makes it (by bytes: a `/` is the byte the
  /// file system splits at, even where a combining mark follows it). Foundation's URL took a
  /// third of the sender's CPU before the first byte of 5,000 files went out.
  static func standardized(_ path: String, in directory: String) -> String {
    let absolute = path.utf8.first == UInt8(ascii: "/") ? path : directory + "/" + path
    if isStandard(absolute) { return absolute }
    var kept: [Substring] = []
    var start = absolute.startIndex
    let utf8 = absolute.utf8
    while start < absolute.endIndex {
      let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? absolute.endIndex
      switch absolute[start..<end] {
      case "", ".": break
      case "..": _ = kept.popLast()
      case let part: kept.append(part)
      }
      start = end < absolute.endIndex ? utf8.index(after: end) : end
    }
    return "/" + kept.joined(separator: "/")
  }

  /// Whether an absolute path is standardized already: no empty, `.` or `..` component, no
  /// slash at its end (most paths a shell expands: one pass over the bytes).
  private static func isStandard(_ absolute: String) -> Bool {
    let (slash, dot) = (UInt8(ascii: "/"), UInt8(ascii: "."))
    // A slash, or the path's end, after "/", "/." or "/.." ends an empty, `.` or `..` component.
    func endsOddComponent(_ last: (UInt8, UInt8, UInt8)) -> Bool {
      last.2 == slash || (last.2 == dot && (last.1 == slash || (last.1 == dot && last.0 == slash)))
    }
    var previous: (UInt8, UInt8, UInt8) = (0, 0, 0)
    for byte in absolute.utf8 {
      if byte == slash, endsOddComponent(previous) { return false }
      previous = (previous.1, previous.2, byte)
    }
    return absolute == "/" || !endsOddComponent(previous)
  }

  /// The last component of a standardized path; `/` for the root.
  static func lastComponent(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), path.utf8.index(after: slash) < path.endIndex else { return "/" }
    return String(path[path.utf8.index(after: slash)...])
  }

  /// Why `name` (`--name`) cannot name an item, by the rule every receiver applies (a path, `.`,
  /// `..`, empty, NUL), or nil: refused here, before anything is sent.
  package static func problem(withName name: String) -> String? {
    do {
      _ = try InboxName.sanitize(name)
      return nil
    } catch {
      return error.description
    }
  }

  /// Whether a command-line argument is a URL rather than a path: an absolute URL with a scheme
  /// (`https://…`, `ftp://…`) that does not name an existing file.
  package static func looksLikeURL(_ argument: String) -> Bool {
    // Over UTF-8 bytes: a scheme is ASCII, and a path of 5,000 arguments was 25 ms by Characters.
    let bytes = argument.utf8
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return false }
    func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
    let scheme = bytes[..<colon]
    guard let first = scheme.first, isLetter(first),
      scheme.allSatisfy({ isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+.-".utf8.contains($0) })
    else { return false }
    return !FileManager.default.fileExists(atPath: argument)
  }

  static let notAFile =
    "it is not a regular file or a folder (a pipe, a device or a socket); to send what a command writes, "
    + "pipe it in: COMMAND | share send - --name NAME"

  /// A path in a note, past a screen's width shown by its ends, so that the note's reason after
  /// it is read (review 38: a path of 150 folders cut the note, reason and all, at the display
  /// limit).
  static func shown(_ path: String) -> String { path.count > 240 ? "\(path.prefix(100))…\(path.suffix(120))" : path }

  /// Adds a file or a folder by path, offered under `name` when given (else its own name). A
  /// path already added (the same file or folder named twice) is left out, with a note.
  package mutating func add(path: String, name: String? = nil) throws(ShareError) {
    let standardPath = Self.standardized(path, in: workingDirectory)
    let url = URL(fileURLWithPath: standardPath, isDirectory: false)
    let lastComponent = Self.lastComponent(of: standardPath)
    // The path's own bytes: a name that is not UTF-8 is opened as it is (`FileNameText`).
    let key = FileNameText.bytes(of: standardPath)
    guard !paths.contains(key) else {
      notes.append("\(path) was named more than once; it is sent once")
      return
    }
    var status: FileStatus
    do {
      status = try FileSystem.status(standardPath, followSymlinks: false)
    } catch {
      throw .source(path: path, reason: error.description)
    }
    // A symlink named on the command line is followed: the user asked for it by name. Its
    // target is what is read (review 30: a link to a file was opened without following links,
    // and no byte was sent).
    var source = url
    if status.kind == .symbolicLink {
      guard let target = try? FileSystem.status(standardPath) else { throw .source(path: path, reason: "it is a broken symbolic link") }
      // `<(command)` is /dev/fd/63, a link to "pipe:[…]" that no path resolves (review 32:
      // "a broken symbolic link").
      guard target.kind != .other else { throw .source(path: path, reason: Self.notAFile) }
      guard let resolved = try? FileSystem.resolvedPath(standardPath) else {
        throw .source(path: path, reason: "it is a broken symbolic link")
      }
      status = target
      source = URL(fileURLWithPath: resolved)
    }
    switch status.kind {
    case .regular:
      do {
        try FileSystem.isReadable(standardPath)
      } catch {
        throw .source(path: path, reason: error.description)
      }
      let offered = PeerText(FileNameText.repaired(name ?? lastComponent))
      if status.size == 0, let (fd, head) = try Self.contentOfEmptySeeming(source.path, label: path) {
        // A /proc or /sys file says 0 bytes and has content (review 26: sent empty, "stored"):
        // sent as standard input is, read to its end.
        items.append(
          OutgoingItem(
            offer: ItemOffer(id: items.count, kind: .file, name: offered, size: nil), source: .stream(fd, head: head), label: path))
      } else {
        let offer = ItemOffer(
          id: items.count, kind: .file, name: offered, size: status.size, resumeKey: OutgoingItem.resumeKey(for: key, status: status))
        var item = OutgoingItem(offer: offer, source: .file(source), label: path)
        item.stamps[nil] = FileStamp(status)
        items.append(item)
      }
    case .directory:
      try addFolder(source, name: name ?? lastComponent, label: path)
    default:
      throw .source(path: path, reason: Self.notAFile)
    }
    paths.insert(key)
  }

  /// Adds a URL, stored by the receiver as a small `.url` file holding it.
  package mutating func add(url given: String) throws(ShareError) {
    // Blanks around it are a typing slip, not part of the URL.
    let url = given.trimmingCharacters(in: .whitespacesAndNewlines)
    // The receiver's rule, checked here so that what it would refuse is never sent.
    if let problem = URLItemRule.problem(with: url) { throw .source(path: url, reason: "it \(problem)") }
    guard let parsed = URL(string: url), let scheme = parsed.scheme, !scheme.isEmpty else {
      throw .source(path: url, reason: "it is not an absolute URL with a scheme")
    }
    var name = parsed.host ?? scheme
    if let last = parsed.pathComponents.last, last != "/" { name += "-" + last }
    let bytes = Array((url + "\n").utf8)
    let offer = ItemOffer(id: items.count, kind: .url, name: PeerText(name + ".url"), size: Int64(bytes.count), type: "public.url")
    items.append(OutgoingItem(offer: offer, source: .inline(bytes), label: url))
  }

  /// Adds a text snippet, stored by the receiver as a `.txt` file holding exactly the text.
  package mutating func add(text: String, name: String?) {
    let bytes = Array(text.utf8)
    let offer = ItemOffer(
      id: items.count, kind: .text, name: PeerText(InboxName.withExtension(name ?? "text", "txt")),
      size: Int64(bytes.count), type: "public.utf8-plain-text")
    items.append(OutgoingItem(offer: offer, source: .inline(bytes), label: "text"))
  }

  /// Adds standard input (or another descriptor), streamed without knowing its size.
  package mutating func add(stream fd: Int32, name: String) {
    let offer = ItemOffer(id: items.count, kind: .file, name: PeerText(name), size: nil)
    items.append(OutgoingItem(offer: offer, source: .stream(fd, head: []), label: "-"))
  }

  /// Adds standard input (or another descriptor) named by its content: its first 64 KiB (or
  /// all of it, when shorter) are read now, and it is offered as `base` with the extension of
  /// the type the receiver will find (`stdin.png`, `stdin.txt`), else as `base` alone. When
  /// that was all of it, its size is known (and a terminal is not read again after Ctrl-D).
  package mutating func add(stream fd: Int32, namedByContent base: String) throws(ShareError) {
    let limit = 64 << 10
    let head = try Self.readHead(of: fd, upTo: limit)
    let name = TypeNames.name(base, forContent: head)
    // Most often the command before '|' failed (review 32: stored as an empty item, unsaid).
    if head.isEmpty { notes.append("standard input is empty (did the command before '|' fail?); an empty item is sent") }
    if head.count < limit {
      let offer = ItemOffer(id: items.count, kind: .file, name: PeerText(name), size: Int64(head.count))
      items.append(OutgoingItem(offer: offer, source: .inline(head), label: "-"))
    } else {
      let offer = ItemOffer(id: items.count, kind: .file, name: PeerText(name), size: nil)
      items.append(OutgoingItem(offer: offer, source: .stream(fd, head: head), label: "-"))
    }
  }

  /// For a file whose size is 0: nil when it is empty, else it open and its first bytes (a file
  /// of a pseudo file system, /proc or /sys, whose size says nothing of its content).
  private static func contentOfEmptySeeming(_ path: String, label: String) throws(ShareError) -> (Int32, [UInt8])? {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly, options: .noFollow)
    } catch {
      throw .source(path: label, reason: error.description)
    }
    let head: [UInt8]
    do {
      head = try readHead(of: file.rawValue, upTo: 64 << 10)
    } catch {
      try? file.close()
      throw error
    }
    guard head.isEmpty else { return (file.rawValue, head) }
    try? file.close()
    return nil
  }

  /// Reads from `fd` until `limit` bytes or the end of input.
  private static func readHead(of fd: Int32, upTo limit: Int) throws(ShareError) -> [UInt8] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: limit, alignment: 16)
    defer { buffer.deallocate() }
    var count = 0
    while count < limit {
      let n: Int
      do {
        n = try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
      } catch {
        throw .source(path: "-", reason: error.description)
      }
      if n == 0 { break }
      count += n
    }
    return Array(buffer[0..<count])
  }

  /// Walks a folder depth-first in name order, without following symlinks; sub-folders are
  /// entries too, so empty ones arrive.
  private mutating func addFolder(_ root: URL, name: String?, label: String) throws(ShareError) {
    // A folder named on the command line that cannot be read is an error, as such a file is
    // (review 45: it was sent as an empty folder, "1 of 1 stored").
    do { _ = try FileSystem.entryNames(of: root.path) } catch { throw .source(path: label, reason: "cannot read the folder: \(error)") }
    var entries: [EntryOffer] = []
    var sources: [URL?] = []
    var stamps: [Int?: FileStamp] = [:]
    func skip(_ note: String) {
      notes.append(note)
      skippedEntries += 1
    }
    func walk(_ folder: URL, relative: String, offeredRelative: String) {
      let names: [String]
      do {
        names = try FileSystem.entryNames(of: folder.path).sorted()
      } catch {
        skip("skipped \(Self.shown("\(label)/\(relative)")): cannot read the folder")
        return
      }
      var taken = Set<String>()
      for name in names {
        let url = folder.appendingPathComponent(name)
        let path = relative.isEmpty ? name : "\(relative)/\(name)"
        // Offered as UTF-8 text (a name that is not UTF-8 with U+FFFD where it is not), unique
        // among its siblings as the receiver compares names; read by its own bytes.
        let (offeredPath, renamed) = Self.offeredPath(of: name, in: offeredRelative, among: &taken)
        if let renamed { notes.append("offered \(label)/\(path) as \(renamed): another entry's name is the same as stored") }
        let offered = PeerText(offeredPath)
        let status: FileStatus
        do {
          status = try FileSystem.status(url.path, followSymlinks: false)
        } catch {
          skip("skipped \(Self.shown(path)): \(error.description)")
          continue
        }
        switch status.kind {
        case .regular:
          guard (try? FileSystem.isReadable(url.path)) != nil else {
            skip("skipped \(Self.shown(path)): not readable")
            continue
          }
          stamps[entries.count] = FileStamp(status)
          entries.append(EntryOffer(path: offered, kind: .file, size: status.size))
          sources.append(url)
        case .directory:
          entries.append(EntryOffer(path: offered, kind: .folder, size: 0))
          sources.append(nil)
          walk(url, relative: path, offeredRelative: offeredPath)
        case .symbolicLink:
          let target = (try? FileSystem.linkTarget(url.path)) ?? "?"
          skip("skipped symbolic link \(Self.shown(path)) -> \(Self.shown(target)) (links are not followed)")
        case .other:
          skip("skipped \(Self.shown(path)): not a regular file (device, socket or pipe)")
        }
      }
    }
    walk(root, relative: "", offeredRelative: "")
    appendFolder(root, name: name, label: label, entries: entries, sources: sources, stamps: stamps)
  }

  /// The folder item of `addFolder`'s walk.
  private mutating func appendFolder(
    _ root: URL, name: String?, label: String, entries: [EntryOffer], sources: [URL?], stamps: [Int?: FileStamp]
  ) {
    let offer = ItemOffer(
      id: items.count, kind: .folder, name: PeerText(FileNameText.repaired(name ?? root.lastPathComponent)),
      size: entries.reduce(0) { $0 + ($1.kind == .file ? $1.size : 0) }, type: "public.folder", entries: entries)
    var item = OutgoingItem(offer: offer, source: .folder(root, entries: sources), label: label)
    item.stamps = stamps
    items.append(item)
  }
}

extension ItemCatalog {
  /// Copies every stream item into a temporary file, so several receivers can each read it;
  /// the items then have a known size. The file is unlinked at once (kept open), so nothing is
  /// left behind.
  package mutating func spoolStreams() throws(ShareError) {
    for index in items.indices {
      guard case .stream(let fd, let head) = items[index].source else { continue }
      let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
      var template = Array("\(directory)/share-stdin-XXXXXX".utf8CString)
      let spool = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      guard spool >= 0 else { throw .source(path: "-", reason: "cannot create a temporary file: \(Errno.current.description)") }
      _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }  // nothing left behind
      let (input, output) = (FileDescriptor(rawValue: fd), FileDescriptor(rawValue: spool))
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
      defer { buffer.deallocate() }
      do {
        try output.writeAll(head)
      } catch {
        throw .source(path: "-", reason: "cannot spool standard input: \(error)")
      }
      var total = Int64(head.count)
      while true {
        let n: Int
        do {
          n = try input.read(into: buffer)
        } catch {
          throw .source(path: "-", reason: error.description)
        }
        if n == 0 { break }
        do {
          try output.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        } catch {
          throw .source(path: "-", reason: "cannot spool standard input: \(error)")
        }
        total += Int64(n)
      }
      items[index].offer.size = total
      items[index].source = .spooled(spool)
    }
  }
}

extension ItemCatalog {
  /// `name`, or the first of `name-1`, `name-2`, … (before the extension) that no sibling in
  /// `taken` has as the receiver compares names (sanitized): entries whose names are not UTF-8
  /// all become `M�ller.txt` when repaired, and the receiver kept one of them (review 32).
  /// An entry's path as offered, under its folder's offered path, and its new name when it is not
  /// its own (see `unique`).
  static func offeredPath(of name: String, in folder: String, among taken: inout Set<String>) -> (String, renamed: String?) {
    let repaired = FileNameText.repaired(name)
    let offered = unique(repaired, among: &taken)
    return (folder.isEmpty ? offered : "\(folder)/\(offered)", offered == repaired ? nil : offered)
  }

  static func unique(_ name: String, among taken: inout Set<String>) -> String {
    func key(_ name: String) -> String { (try? InboxName.sanitize(name)) ?? name }
    var candidate = name
    var number = 0
    while !taken.insert(key(candidate)).inserted {
      number += 1
      candidate = InboxName.variant(of: name, number: number)
    }
    return candidate
  }
}
