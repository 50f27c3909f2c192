import Foundation
import Glibc

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
    var text = Data()
    for record in records {
      text.append(contentsOf: record.jsonLine.utf8)
    }
    let name = "\(UInt64(Date().timeIntervalSince1970 * 1000))-\(randomHex(8)).jsonl"
    try writeDurably(text, to: directory.appendingPathComponent(name))
  }

  /// Every record, newest last, and the journal files they came from.
  func readAll() -> (records: [MetadataRecord], files: [URL]) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    let files = names.filter { $0.hasSuffix(".jsonl") }.sorted().map { directory.appendingPathComponent($0) }
    var records: [MetadataRecord] = []
    for file in files {
      guard let data = FileManager.default.contents(atPath: file.path) else { continue }
      for line in data.split(separator: 0x0A) where !line.isEmpty {
        // A torn or foreign line is skipped: metadata is a convenience, never a reason to fail.
        if let record = try? MetadataJournal.decoder.decode(MetadataRecord.self, from: Data(line)) {
          records.append(record)
        }
      }
    }
    return (records, files)
  }

  /// Rewrites the journal as one file holding only the records for `live` identities, when
  /// enough dead weight has piled up. Only removes files it has read.
  func compact(keeping live: Set<FileIdentity>, force: Bool = false) throws(InboxError) {
    let (records, files) = readAll()
    var latest: [FileIdentity: MetadataRecord] = [:]
    for record in records where live.contains(record.file) { latest[record.file] = record }
    let dead = records.count - latest.count
    guard force || files.count > 32 || dead > 256 else { return }
    try append(Array(latest.values).sorted { $0.meta.receivedAt < $1.meta.receivedAt })
    for file in files { unlink(file.path) }
    try syncDirectory(directory)
  }
}

/// Writes `data` to `url` atomically and durably: a temporary file, fsync, rename, fsync of the
/// directory.
func writeDurably(_ data: Data, to url: URL, mode: mode_t = 0o600) throws(InboxError) {
  let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(randomHex(6)).tmp")
  let fd = retryingEINTR { open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
  if fd < 0 { throw InboxError.from("open", temp.path) }
  var ok = false
  defer {
    if !ok { unlink(temp.path) }
  }
  let written: Int = data.withUnsafeBytes { raw in
    guard var base = raw.baseAddress else { return 0 }
    var remaining = raw.count
    while remaining > 0 {
      let n = retryingEINTR { write(fd, base, remaining) }
      if n <= 0 { return -1 }
      remaining -= n
      base += n
    }
    return raw.count
  }
  let writeErrno = errno
  if written < 0 {
    close(fd)
    throw InboxError.from("write", temp.path, writeErrno)
  }
  if fsync(fd) != 0 {
    let code = errno
    close(fd)
    throw InboxError.from("fsync", temp.path, code)
  }
  close(fd)
  if rename(temp.path, url.path) != 0 { throw InboxError.from("rename", url.path) }
  ok = true
  try syncDirectory(url.deletingLastPathComponent())
}

/// fsyncs a directory so that names created or removed in it are durable.
func syncDirectory(_ url: URL) throws(InboxError) {
  let fd = retryingEINTR { open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
  if fd < 0 { throw InboxError.from("open", url.path) }
  defer { close(fd) }
  if fsync(fd) != 0 { throw InboxError.from("fsync", url.path) }
}

/// `count` random bytes as hex, for unique file names.
func randomHex(_ count: Int) -> String {
  var generator = SystemRandomNumberGenerator()
  let digits = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  out.reserveCapacity(count * 2)
  for _ in 0..<count {
    let byte = UInt8.random(in: 0...255, using: &generator)
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0xf)])
  }
  return String(decoding: out, as: UTF8.self)
}
