import Foundation
import Glibc

/// A pseudo-terminal pair, so a child's stderr can be a real terminal (`isatty` true) while the
/// test reads what it wrote. The master side is drained on a thread of its own.
///
/// Swift's Glibc module leaves out `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r` (they
/// need `_XOPEN_SOURCE`), so they are looked up in the C library with `dlsym`.
///
/// `@unchecked Sendable`: `output` is touched only under `condition`.
final class Pseudoterminal: @unchecked Sendable {
  private let master: Int32
  /// The terminal side, to hand to a child as its stderr.
  let terminal: FileHandle
  private let condition = NSCondition()
  private var output = Data()
  private var ended = false

  private typealias IntFunction = @convention(c) (Int32) -> Int32
  private typealias NameFunction = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

  init() throws {
    guard let libc = dlopen(nil, RTLD_NOW),
      let openSymbol = dlsym(libc, "posix_openpt"), let grantSymbol = dlsym(libc, "grantpt"),
      let unlockSymbol = dlsym(libc, "unlockpt"), let nameSymbol = dlsym(libc, "ptsname_r")
    else { throw HarnessError("the C library has no posix_openpt/grantpt/unlockpt/ptsname_r") }
    let openpt = unsafeBitCast(openSymbol, to: IntFunction.self)
    let grantpt = unsafeBitCast(grantSymbol, to: IntFunction.self)
    let unlockpt = unsafeBitCast(unlockSymbol, to: IntFunction.self)
    let ptsname = unsafeBitCast(nameSymbol, to: NameFunction.self)

    master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard master >= 0 else { throw HarnessError("posix_openpt: errno \(errno)") }
    var name = [CChar](repeating: 0, count: 128)
    guard grantpt(master) == 0, unlockpt(master) == 0, ptsname(master, &name, name.count) == 0 else {
      close(master)
      throw HarnessError("cannot set up a pseudo-terminal: errno \(errno)")
    }
    let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard slave >= 0 else {
      close(master)
      throw HarnessError("cannot open \(path): errno \(errno)")
    }
    terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    let thread = Thread { [self] in drain() }
    thread.name = "e2e-pty"
    thread.start()
  }

  deinit { close(master) }

  /// Reads the master side until every terminal-side descriptor is closed (read fails with EIO).
  private func drain() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      condition.lock()
      if n > 0 { output.append(contentsOf: buffer[0..<n]) } else { ended = true }
      condition.broadcast()
      condition.unlock()
      if n <= 0 { return }
    }
  }

  /// Closes this side's copy of the terminal (do it once the child has it), then waits (bounded)
  /// for the child's copies to close and returns everything written to the terminal.
  func closeAndCollect(timeout: Duration = .seconds(20)) -> Data {
    try? terminal.close()
    let deadline = Date().addingTimeInterval(timeout.seconds)
    condition.lock()
    defer { condition.unlock() }
    while !ended, condition.wait(until: deadline) {}
    return output
  }
}
