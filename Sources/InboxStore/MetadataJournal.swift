import Foundation
import System

/// The Inbox's metadata, kept outside the Inbox as JSON-lines journal files, one per placed
/// batch, each record keyed by the item's `FileIdentity`.
///
/// A record is written and synced *before* its item is renamed into the Inbox, so an item in
/// the Inbox always has its record unless the disk lost a synced write. Records whose item has
/// left the Inbox are dropped by `compact`. Several processes may append at once: each writes
/// its own file; compaction only ever removes the files it read.
struct MetadataJournal {
  let directory: URL

  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()

  /// Writes `records` durably as a new journal file (temp, fsync, rename, fsync directory).
  func append(_ records: [MetadataRecord]) throws(InboxError) {
    guard !records.isEmpty else { return }
    var lines: [UInt8] = []
    lines.reserveCapacity(records.count * 512)
    for record in records { record.appendJSONLine(to: &lines) }
    let name = "\(UInt64(Date().timeIntervalSince1970 * 1000))-\(randomHex(8)).jsonl"
    let path = directory.appendingPathComponent(name, isDirectory: false).path
    try InboxError.attempt("write", path) { () throws(Errno) in try writeDurably(lines, to: path) }
  }

  /// Every record, newest last, and the journal files they came from.
  func readAll() -> (records: [MetadataRecord], files: [URL]) {
    var records: [MetadataRecord] = []
    let files = forEachRecord { records.append($0) }
    return (records, files)
  }

  /// The journal files, oldest first (their names start with the time they were written, in
  /// milliseconds).
  func files() -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { directory.appendingPathComponent($0) }
  }

  /// Calls `body` with every record of `files` (all of them: nil), newest last, one journal
  /// file in memory at a time; returns the journal files they came from.
  @discardableResult
  func forEachRecord(in files: [URL]? = nil, _ body: (MetadataRecord) -> Void) -> [URL] {
    let files = files ?? self.files()
    var parser = MetadataLineParser()
    for file in files {
      guard let data = FileManager.default.contents(atPath: file.path) else { continue }
      data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
          let end = memchr(base + start, 0x0A, bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
          let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
          start = end + 1
          guard !line.isEmpty else { continue }
          // A torn or foreign line is skipped: metadata is a convenience, never a reason to fail.
          if let record = parser.parse(line)
            ?? (try? MetadataJournal.decoder.decode(MetadataRecord.self, from: Data(line)))
          {
            body(record)
          }
        }
      }
    }
    return files
  }

  /// How old a journal file must be before a compaction reads and removes it. A daemon writes a
  /// batch's records, then renames its items into the Inbox; a compaction by another process
  /// (`share inbox delete`, `move`) in between found those items not yet listed and dropped
  /// their records for good (review 27: 1,911 of a send's 3,000).
  static let settleTime: TimeInterval = 600

  /// Rewrites the journal's settled files (`settleTime`) as one holding only the records for
  /// `live` identities, when enough dead weight has piled up. Only removes files it has read.
  func compact(keeping live: Set<FileIdentity>, force: Bool = false, now: Date = Date()) throws(InboxError) {
    let settledBefore = UInt64(max(0, (now.timeIntervalSince1970 - Self.settleTime) * 1000))
    let settled = files().filter { file in
      file.lastPathComponent.split(separator: "-").first.flatMap { UInt64($0) }.map { $0 < settledBefore } ?? true
    }
    var records: [MetadataRecord] = []
    let files = forEachRecord(in: settled) { records.append($0) }
    var latest: [FileIdentity: MetadataRecord] = [:]
    for record in records where live.contains(record.file) { latest[record.file] = record }
    let dead = records.count - latest.count
    guard force || files.count > 32 || dead > 256 else { return }
    try append(Array(latest.values).sorted { $0.meta.receivedAt < $1.meta.receivedAt })
    for file in files { try? FileSystem.remove(file.path) }
    try syncDirectory(directory)
  }
}

/// fsyncs a directory so that names created or removed in it are durable.
func syncDirectory(_ url: URL) throws(InboxError) {
  try InboxError.attempt("fsync", url.path) { () throws(Errno) in try FileSystem.syncDirectory(url.path) }
}

/// `count` random bytes as hex, for unique file names.
func randomHex(_ count: Int) -> String {
  // Eight random bytes a draw: each draw from the system generator is a getrandom call (one a
  // byte made staging a small file's name cost 12 system calls).
  var generator = SystemRandomNumberGenerator()
  let digits = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  out.reserveCapacity(count * 2)
  var random: UInt64 = 0
  for index in 0..<count {
    if index % 8 == 0 { random = generator.next() }
    let byte = UInt8(truncatingIfNeeded: random >> (UInt64(index % 8) * 8))
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0xf)])
  }
  return String(decoding: out, as: UTF8.self)
}
