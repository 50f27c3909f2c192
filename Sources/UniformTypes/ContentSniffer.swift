import CMagic
import Glibc
import Synchronization
import System
import TextEscaping

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What libmagic says about some bytes.
package struct MagicResult: Sendable, Codable, Equatable {
  /// The MIME type (`MAGIC_MIME_TYPE`), e.g. `application/x-pie-executable`.
  package var mimeType: String
  /// The human description (no MIME flag), e.g. `ELF 64-bit LSB pie executable, x86-64, …`.
  package var description: String

  package init(mimeType: String, description: String) {
    self.mimeType = mimeType
    self.description = description
  }
}

/// A libmagic call that failed, with libmagic's own message and errno.
package struct ContentSnifferError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The C function that failed (`magic_open`, `magic_load`, `magic_buffer`, `magic_setflags`).
  package var function: String
  /// `magic_error()`, or the text of errno when libmagic gave none.
  package var message: String
  /// `magic_errno()` or `errno`; 0 when none.
  package var errno: Int32

  package var description: String {
    "content sniffing failed: \(function): \(Escaping.escaped(message))" + (errno != 0 ? " (errno \(errno))" : "")
  }
}

/// Content sniffing with libmagic (the library behind file(1)), on a file's first bytes.
///
/// Owns one or more `magic_t` (from `magic_open`, all reading one mapping of the system's
/// compiled database, `/usr/share/misc/magic.mgc` on Debian, through `magic_load_buffers`),
/// closed with `magic_close` in deinit. A `magic_t` keeps per-call state and result buffers, so
/// it is not thread-safe: every use happens inside its own `Mutex`. A call takes the first
/// handle that is free (or waits for one), so as many threads as there are handles sniff at
/// once: a receiver judges small files on as many workers as the machine has cores.
package final class ContentSniffer: Sendable {
  /// How many leading bytes of an item are sniffed: 64 KiB.
  ///
  /// Most signatures sit in the first bytes (ELF 64 bytes, PNG 8, PDF 1,024, tar's `ustar` at
  /// 257 in a 512-byte header, ZIP's first local header at 0, AppImage's `AI\2` at 8, MP4's
  /// `ftyp` box at 4, RPM's 96-byte lead, deb's `ar` member list in the first 200 bytes). The
  /// ones that need more are containers: OOXML is recognised from the names of the first ZIP
  /// entries (`[Content_Types].xml`, `word/…`), which follow small compressed parts within a
  /// few KiB; OLE2 compound files (doc/xls/ppt/msi) need their directory sectors, and
  /// ISO 9660 keeps its volume descriptor at 32,769. 64 KiB covers all of these with margin,
  /// costs one small buffer per transfer, and keeps a sniff in the tens of microseconds.
  package static let headLength = 64 * 1024

  /// Whether an item whose first `headCount` bytes were read goes on past them, so that what
  /// follows was not seen: by its size when known; without one (a stream), when the head is full.
  package static func goesOnPastHead(_ headCount: Int, totalSize: Int64?) -> Bool {
    totalSize.map { $0 > Int64(headCount) } ?? (headCount >= headLength)
  }

  private let cookies: [MagicCookie]
  /// Which handle a call waits for when all are busy (round robin).
  private let nextWait = Atomic<Int>(0)
  /// The compiled database, mapped by us and handed to libmagic (`magic_load_buffers`), so its
  /// pages can be given back between uses; nil when libmagic loaded it itself.
  private let database: MappedFile?
  /// The database cut to what can print a MIME type, asked first for MIME types, and the whole
  /// one guarded, asked when the cut one's answer is marked.
  private let cutDatabase: CutMagicDatabase

  /// Opens libmagic and loads its database.
  /// - Parameters:
  ///   - databasePath: a compiled magic file, or nil for the system default.
  ///   - handles: how many `magic_t` to open (threads that can sniff at once), at least 1.
  ///   - cutFirst: whether MIME types are asked of the cut database first (`MIMEMagicDatabase`:
  ///     the same answers, about 2.5 times faster for bytes no signature fits); false asks the
  ///     full database only (for comparing the two).
  ///   - cutFile: a file to keep the cut database in between processes (`CutMagicFile`), or
  ///     nil to build it in memory in each.
  /// - Throws: `ContentSnifferError` from `magic_open` or `magic_load`.
  package convenience init(
    databasePath: String? = nil, handles: Int = 1, cutFirst: Bool = true, cutFile: String? = nil
  ) throws(ContentSnifferError) {
    let (opened, mapped) = try Self.openAll(databasePath, count: max(1, handles))
    self.init(opened, database: mapped, cutFirst: cutFirst, cutFile: cutFile)
  }

  private init(_ handles: [OpaquePointer], database: MappedFile?, cutFirst: Bool, cutFile: String?) {
    let cut = cutFirst && database != nil
    cookies = handles.map { MagicCookie($0, cut: cut) }
    self.database = database
    // Every handle here is opened with libmagic's defaults: the first one's limit is all of theirs.
    let regexLimit = MagicHandles.regexLimit(of: handles[0])
    var file: CutMagicFile? = nil
    if let cutFile, let status = database?.status {
      let source = CutMagicFile.Source(
        inode: status.inode, size: UInt64(status.size), modified: status.modificationNanoseconds, regexLimit: UInt64(regexLimit))
      file = CutMagicFile(path: cutFile, source: source)
    }
    cutDatabase = CutMagicDatabase(source: cut ? database : nil, file: file, regexLimit: regexLimit)
  }

  /// `count` handles all reading one mapping of the database (`magic_load_buffers`); if that
  /// cannot be, each loading the database itself (`magic_load`).
  private static func openAll(
    _ databasePath: String?, count: Int
  ) throws(ContentSnifferError) -> ([OpaquePointer], MappedFile?) {
    if let mapped = MappedFile.map(databasePath ?? "/usr/share/misc/magic.mgc") {
      var opened: [OpaquePointer] = []
      while opened.count < count, let handle = MagicHandles.open(reading: mapped.address, length: mapped.length) {
        opened.append(handle)
      }
      if opened.count == count { return (opened, mapped) }
      for handle in opened { magic_close(handle) }
      mapped.unmap()
    }
    var opened: [OpaquePointer] = []
    do {
      for _ in 0..<count { opened.append(try openLoading(databasePath)) }
    } catch {
      for handle in opened { magic_close(handle) }
      throw error
    }
    return (opened, nil)
  }

  /// One `magic_t` that loads the database itself.
  private static func openLoading(_ databasePath: String?) throws(ContentSnifferError) -> OpaquePointer {
    guard let handle = magic_open(MAGIC_MIME_TYPE) else {
      let code = Errno.current
      throw ContentSnifferError(function: "magic_open", message: code.description, errno: code.rawValue)
    }
    let loaded = databasePath.map { magic_load(handle, $0) } ?? magic_load(handle, nil)
    if loaded != 0 {
      let error = Self.error(handle, function: "magic_load")
      magic_close(handle)
      throw error
    }
    return handle
  }

  deinit {
    for cookie in cookies { cookie.mutex.withLock { $0.close() } }
    database?.unmap()
  }

  /// Runs `body` with a handle no other thread is using: the first free one, else (all busy)
  /// the next in turn, once it is free.
  private func withHandle<Value: Sendable>(_ body: (inout MagicHandles) -> Value) -> Value {
    for cookie in cookies {
      if let value = cookie.mutex.withLockIfAvailable({ body(&$0) }) { return value }
    }
    let turn = nextWait.add(1, ordering: .relaxed).newValue % cookies.count
    return cookies[turn].mutex.withLock { body(&$0) }
  }

  /// Gives the database's pages back to the system (they stay in the page cache and come back
  /// on the next sniff, at the cost of a few thousand minor faults), and the cut database's when
  /// it is mapped from its file. A receiver calls it after judging a large item, so the ~6 MiB
  /// database and the ~4 MiB cut one do not stay resident for the whole transfer.
  ///
  /// No lock is needed: both mappings are private, read-only and never written, so a page given
  /// back while a sniff on another thread reads it faults back in from the page cache with the
  /// same bytes.
  package func releaseDatabasePages() {
    database?.release()
    cutDatabase.releasePages()
  }

  /// libmagic's MIME type and description of `head` (up to four `magic_buffer` calls on one handle).
  /// Any thread may call.
  package func sniff(_ head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> MagicResult {
    let result: Result<MagicResult, ContentSnifferError> = withHandle { handles in
      do throws(ContentSnifferError) {
        // The same passes as `mimeType(ofHead:)`, so `share types check` says what the
        // receiver decides.
        if ContentSniffer.isTinyText(head) { return .success(MagicResult(mimeType: "text/plain", description: "very short text")) }
        if ContentSniffer.isPlainUTF8Text(head) { return .success(MagicResult(mimeType: "text/plain", description: "UTF-8 text")) }
        let (mime, text) = try mimeType(&handles, head)
        let description = try Self.buffer(whole(&handles), head, flags: text ? MAGIC_NO_CHECK_SOFT : MAGIC_NONE)
        return .success(MagicResult(mimeType: mime, description: description))
      } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// `sniff(_:)` for bytes in an array.
  package func sniff(_ head: [UInt8]) throws(ContentSnifferError) -> MagicResult {
    let result: Result<MagicResult, ContentSnifferError> = head.withUnsafeBytes { bytes in
      do throws(ContentSnifferError) { return .success(try sniff(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// libmagic's MIME type of `head` only. Any thread may call.
  package func mimeType(ofHead head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> String {
    let result: Result<String, ContentSnifferError> = withHandle { handles in
      do throws(ContentSnifferError) {
        if ContentSniffer.isTinyText(head) || ContentSniffer.isPlainUTF8Text(head) { return .success("text/plain") }
        return .success(try mimeType(&handles, head).mime)
      } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// The MIME type of `head` (not tiny, not plain UTF-8 text), and whether the quick pass
  /// decided it as plain text. Caller holds the handles' lock.
  ///
  /// The quick pass skips libmagic's "soft" magic database and runs only its built-in checks
  /// (text encodings, JSON, CSV, tar, compression, CDF): when that finds text in a head that
  /// starts as plain text does (`startsWithLetterOrDigit`), the text answer stands — the
  /// database's text patterns take about 2 ms per 4 KiB of text and then only guess finer kinds
  /// (HTML, C, a script without `#!`), while the rules that matter for text (a `#!` interpreter, a
  /// desktop entry or flatpakref group) are share's own (`ContentClassifier`). Anything else —
  /// every binary format, and text that starts like a signature — gets the database: the cut one
  /// first (`MIMEMagicDatabase`; asked as its rest and the groups whose first tests may match,
  /// `cutPass`), whose answer stands when it carries no mark, else the whole one: for bytes
  /// libmagic does not take for text, its binary pieces one at a time (`binaryPiecesAnswer`);
  /// else, or when they send the bytes on, its guarded copy, when there is one.
  private func mimeType(_ handles: inout MagicHandles, _ head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> (
    mime: String, text: Bool
  ) {
    // Plain text starts with a letter or a digit: for any other head the quick pass is asked
    // only when a marked answer must know whether the bytes are text (one call less per head).
    var quick: String? = nil
    if ContentSniffer.startsWithLetterOrDigit(head) {
      let answer = try Self.quickAnswer(handles, head)
      if answer.hasPrefix("text/") { return (answer, true) }
      quick = answer
    }
    if let answer = cutPass(&handles, head).answer, !answer.utf8.contains(MIMEMagicDatabase.marker) {
      return (MIMEType.normalized(answer), false)
    }
    if quick == nil { quick = try Self.quickAnswer(handles, head) }
    if quick == Self.notText, let answer = try binaryPiecesAnswer(&handles, head) { return (answer.mime, false) }
    return (MIMEType.normalized(try Self.buffer(whole(&handles), head, flags: MAGIC_MIME_TYPE)), false)
  }

  /// Which way the cut pass about `head` went, for tests: the rest alone, the rest and some
  /// groups put back, or the cut (no rest, or the other two failed).
  enum CutPass: String {
    case rest, some, cut
  }

  /// The cut database's MIME type of `head` (marked or not), and which way it was asked: of the
  /// cut's rest when no first test may match the head, else of the rest with the groups whose
  /// first tests may match put back (`MIMEMagicDatabase.Split`: the same answer, about three
  /// times sooner, reading a tenth of the cut), else of the cut; nil when there is none, or
  /// libmagic fails. Caller holds the lock.
  private func cutPass(_ handles: inout MagicHandles, _ head: UnsafeRawBufferPointer) -> (answer: String?, by: CutPass) {
    if let (rest, tests) = cutDatabase.restHandle(in: &handles.rest) {
      let candidates = tests.candidates(head)
      let answer =
        candidates.isEmpty
        ? try? Self.buffer(rest, head, flags: MAGIC_MIME_TYPE)
        : cutDatabase.withCut(puttingBack: candidates, of: tests, in: &handles, keeping: !ByteSearch.contains([0], in: head)) { cut in
          try? Self.buffer(cut, head, flags: MAGIC_MIME_TYPE)
        } ?? nil
      if let answer { return (answer, candidates.isEmpty ? .rest : .some) }
    }
    guard let cut = cutDatabase.handle(.cut, in: &handles.cut) else { return (nil, .cut) }
    return (try? Self.buffer(cut, head, flags: MAGIC_MIME_TYPE), .cut)
  }

  /// The groups of the kept `PutBack` handles, least recently used first (for tests).
  func keptPutBacks() -> [[Int]] { withHandle { $0.putBack.kept.map(\.candidates) } }

  /// The cut pass's answer for `head` and which way it went (for tests).
  func cutPass(ofHead head: UnsafeRawBufferPointer) -> (answer: String?, by: CutPass) {
    withHandle { cutPass(&$0, head) }
  }

  /// libmagic's built-in checks' MIME type of `head` (no database). Caller holds the lock.
  private static func quickAnswer(_ handles: MagicHandles, _ head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> String {
    MIMEType.normalized(try buffer(handles.full, head, flags: MAGIC_MIME_TYPE | MAGIC_NO_CHECK_SOFT))
  }

  /// The quick pass's answer for bytes that are not text (nor anything else its checks know).
  private static let notText = "application/octet-stream"

  /// The whole database's MIME type for `head`, bytes that libmagic does not take for text,
  /// asked of its binary pieces one after the other (`MIMEMagicDatabase.BinaryChunks`), the
  /// pages of each given back before the next is read, and which piece answered; nil when there
  /// are no pieces, or the answer needs the whole database (an `indirect` line matched). Caller
  /// holds the handles' lock.
  func binaryPiecesAnswer(
    _ handles: inout MagicHandles, _ head: UnsafeRawBufferPointer
  ) throws(ContentSnifferError) -> (mime: String, piece: Int)? {
    guard let pieces = cutDatabase.pieceHandles(in: &handles.pieces) else { return nil }
    defer { cutDatabase.releasePiece(nil) }
    func ask(_ index: Int) throws(ContentSnifferError) -> String {
      defer { cutDatabase.releasePiece(index) }
      return try Self.buffer(pieces[index], head, flags: MAGIC_MIME_TYPE)
    }
    for index in pieces.indices {
      let answer = try ask(index)
      if answer == MIMEMagicDatabase.nextChunkMIME { continue }
      if answer.contains(MIMEMagicDatabase.fullDatabaseMIME) { return nil }
      // Marked: a database entry printed it; unmarked: libmagic's built-in answer. Two marks:
      // one group printed two types (a `use` then a line of its own), run together unmarked in
      // the whole database's answer: asked of it as it is.
      let marks = answer.utf8.filter { $0 == MIMEMagicDatabase.marker }.count
      guard marks <= 1 else { return nil }
      let printed = answer.utf8.first == MIMEMagicDatabase.marker
      return (MIMEType.normalized(printed ? String(answer.dropFirst()) : answer), index)
    }
    return nil
  }

  /// `binaryPiecesAnswer` on one of the sniffer's handles, for tests: nil also when `head` is
  /// text (the pieces are not for it).
  package func binaryPiecesAnswer(ofHead head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> (mime: String, piece: Int)? {
    let result: Result<(mime: String, piece: Int)?, ContentSnifferError> = withHandle { handles in
      do throws(ContentSnifferError) {
        if ContentSniffer.isTinyText(head) || ContentSniffer.isPlainUTF8Text(head) { return .success(nil) }
        return .success(try Self.quickAnswer(handles, head) == Self.notText ? try binaryPiecesAnswer(&handles, head) : nil)
      } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// The handle on the whole database: its guarded copy when there is one (the same answers,
  /// MIME types and descriptions, sooner), else the full database. Caller holds the lock.
  private func whole(_ handles: inout MagicHandles) -> OpaquePointer {
    cutDatabase.handle(.guarded, in: &handles.guarded) ?? handles.full
  }

  /// libmagic's human description of `head` only (one `magic_buffer` call). Any thread may call.
  package func description(ofHead head: UnsafeRawBufferPointer) throws(ContentSnifferError) -> String {
    let result: Result<String, ContentSnifferError> = withHandle { handles in
      do throws(ContentSnifferError) {
        return .success(try Self.buffer(whole(&handles), head, flags: MAGIC_NONE))
      } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// Sets `flags` and runs `magic_buffer`, copying the result out of libmagic's buffer
  /// (which the next call on the same cookie overwrites). Caller holds the lock.
  static func buffer(
    _ handle: OpaquePointer, _ head: UnsafeRawBufferPointer, flags: Int32
  ) throws(ContentSnifferError) -> String {
    var flags = flags
    if isBinaryToLibmagic(head, encodingLimit: MagicHandles.encodingLimit(of: handle)) {
      flags |= skippedForBinary
    }
    guard magic_setflags(handle, flags) == 0 else { throw error(handle, function: "magic_setflags") }
    // magic_buffer wants a non-null pointer even for zero bytes.
    var empty: UInt8 = 0
    let text: UnsafePointer<CChar>? =
      if let base = head.baseAddress, head.count > 0 {
        magic_buffer(handle, base, head.count)
      } else {
        magic_buffer(handle, &empty, 0)
      }
    guard let text else { throw error(handle, function: "magic_buffer") }
    return String(cString: text)
  }

  /// The checks `buffer` leaves out for a head `isBinaryToLibmagic` calls binary: libmagic's
  /// text encodings and its text pass, which would find what that says (half of libmagic's work on
  /// a binary head: the encoding is tried twice, eight ways each).
  static let skippedForBinary = MAGIC_NO_CHECK_ENCODING | MAGIC_NO_CHECK_TEXT

  /// Whether libmagic (5.44's `file_buffer`) must find `head` not to be text in both places it
  /// looks: its encoding check over the head's first `encodingLimit` bytes, whose only effect on a
  /// binary head is that its text-only tests are skipped (and CSV is not tried), and its text
  /// pass, which looks again with the trailing NULs cut off and gives up on binary bytes. Told not
  /// to look, it answers the same. A NUL byte is text in no encoding libmagic tries (ASCII,
  /// UTF-8, Latin-1, extended ASCII, EBCDIC) but those that start with a byte-order mark (UTF-8,
  /// UTF-16, UTF-32); so the head is binary when it starts with none of those marks and holds a
  /// NUL within the encoding check's reach that some other byte follows (so cutting trailing NULs
  /// keeps it). Random bytes, and most binary formats, are.
  static func isBinaryToLibmagic(_ head: UnsafeRawBufferPointer, encodingLimit: Int) -> Bool {
    let bytes = head.bindMemory(to: UInt8.self)
    let reach = min(bytes.count, encodingLimit)
    guard reach >= 4 else { return false }
    let (b0, b1, b2, b3) = (bytes[0], bytes[1], bytes[2], bytes[3])
    if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) || (b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)
      || (b0 == 0 && b1 == 0 && b2 == 0xFE && b3 == 0xFF)
    {
      return false
    }
    guard let base = bytes.baseAddress, let found = memchr(base, 0, reach) else { return false }
    let nul = UnsafeRawPointer(found) - UnsafeRawPointer(base)
    return bytes[(nul + 1)...].contains { $0 != 0 }
  }

  private static func error(_ handle: OpaquePointer, function: String) -> ContentSnifferError {
    let code = magic_errno(handle)
    let message = magic_error(handle).map { String(cString: $0) } ?? Errno(rawValue: code).description
    return ContentSnifferError(function: function, message: message, errno: code)
  }
}
