import Foundation
import Glibc

/// Writes `count` bytes from /dev/urandom to a new file at `url`.
func writeRandomBytes(_ count: Int, to url: URL) throws {
  let source = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
  guard source >= 0 else { throw HarnessError("cannot open /dev/urandom: errno \(errno)") }
  defer { close(source) }
  let target = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard target >= 0 else { throw HarnessError("cannot create \(url.path): errno \(errno)") }
  defer { close(target) }
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
  defer { buffer.deallocate() }
  var left = count
  while left > 0 {
    let n = read(source, buffer.baseAddress, min(left, buffer.count))
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else { throw HarnessError("cannot read /dev/urandom: errno \(errno)") }
    var written = 0
    while written < n {
      let w = write(target, buffer.baseAddress! + written, n - written)
      if w < 0 && errno == EINTR { continue }
      guard w > 0 else { throw HarnessError("cannot write \(url.path): errno \(errno)") }
      written += w
    }
    left -= n
  }
}

/// Whether two files hold exactly the same bytes (compared a MiB at a time).
func filesAreIdentical(_ a: URL, _ b: URL) -> Bool {
  guard let first = FileHandle(forReadingAtPath: a.path), let second = FileHandle(forReadingAtPath: b.path) else {
    return false
  }
  defer {
    try? first.close()
    try? second.close()
  }
  while true {
    // `read(upToCount:)` returns nil at end of file.
    do {
      let x = try first.read(upToCount: 1 << 20) ?? Data()
      let y = try second.read(upToCount: 1 << 20) ?? Data()
      if x != y { return false }
      if x.isEmpty { return true }
    } catch {
      return false
    }
  }
}

/// The permission bits of a path (without following a symlink), or nil when it does not exist.
func permissions(_ url: URL) -> mode_t? {
  var info = stat()
  guard lstat(url.path, &info) == 0 else { return nil }
  return info.st_mode & 0o7777
}

/// The size of a file, or nil when it does not exist.
func fileSize(_ url: URL) -> Int64? {
  var info = stat()
  guard lstat(url.path, &info) == 0 else { return nil }
  return Int64(info.st_size)
}

/// The SHA-256 of a file as `sha256sum` computes it: an oracle independent of the product.
func sha256sum(_ url: URL) throws -> String {
  let child = try ChildProcess(
    executable: URL(fileURLWithPath: "/usr/bin/sha256sum"), arguments: [url.path],
    environment: ProcessInfo.processInfo.environment)
  let result = child.wait(timeout: .seconds(60))
  guard result.exited(with: 0), let hex = result.stdoutText.split(separator: " ").first else {
    throw HarnessError("sha256sum failed:\n\(result)")
  }
  // For a name with a backslash or newline, sha256sum escapes the name and marks the line with a
  // leading backslash.
  return String(hex.drop { $0 == "\\" })
}

/// Parses every non-empty line of `text` as one JSON object; throws naming the first line that
/// is not one.
func parseJSONLines(_ text: String) throws -> [[String: Any]] {
  try text.split(separator: "\n").map { line in
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
      throw HarnessError("not a JSON object: \(line)")
    }
    return object
  }
}

/// Whether `text` has a C0 or C1 control character or DEL.
func hasControlCharacters(_ text: String) -> Bool {
  text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
}

/// The ASCII escape byte that starts terminal escape sequences.
let escapeByte: UInt8 = 0x1B

/// A valid 1×1 RGBA PNG: signature, IHDR, IDAT, IEND.
let tinyPNG =
  Data(
    base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
  ?? Data()

/// Every file, folder and link under `root` (hidden ones included), without following links.
func everything(under root: URL) -> [URL] {
  guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
  return walker.compactMap { $0 as? URL }
}

/// The regular files under `root` whose bytes contain `needle`.
func files(under root: URL, containing needle: Data) -> [URL] {
  everything(under: root).filter { url in
    var info = stat()
    guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    guard let bytes = FileManager.default.contents(atPath: url.path) else { return false }
    return bytes.range(of: needle) != nil
  }
}
