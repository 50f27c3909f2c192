import Foundation
import Glibc
import System
import Testing

@Suite struct InterruptTests {
  /// Keeps signalling `thread` until `done` says the blocked call has been interrupted enough.
  private func signal(_ thread: pthread_t, until done: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(30)
    while !done() {
      guard Date() < deadline else { throw TestFailure("the blocked call was never interrupted") }
      Interruptions.interrupt(thread)
      usleep(5_000)
    }
  }

  @Test func aSignalReallyInterruptsABlockedReadWithoutTheRetry() throws {
    Interruptions.install()
    let (readEnd, writeEnd) = try FileDescriptor.pipe()
    defer {
      try? readEnd.close()
      try? writeEnd.close()
    }
    let handle = ThreadHandle()
    let reader = Background { () throws -> Int in
      handle.publish()
      var byte: UInt8 = 0
      return try valueOrErrno(retryOnInterrupt: false) { read(readEnd.rawValue, &byte, 1) }
    }
    let thread = try handle.wait()
    try signal(thread) { reader.isFinished }
    #expect(throws: Errno.interrupted) { try reader.wait() }
  }

  @Test func retryOnInterruptRunsTheCallAgainUntilItCompletes() throws {
    Interruptions.install()
    let (readEnd, writeEnd) = try FileDescriptor.pipe()
    defer {
      try? readEnd.close()
      try? writeEnd.close()
    }
    let handle = ThreadHandle()
    let attempts = Counter()
    let reader = Background { () throws -> UInt8 in
      handle.publish()
      var byte: UInt8 = 0
      _ = try retryOnInterrupt { () throws(Errno) -> Int in
        attempts.increment()
        return try valueOrErrno(retryOnInterrupt: false) { read(readEnd.rawValue, &byte, 1) }
      }
      return byte
    }
    let thread = try handle.wait()
    // Two interruptions at least: the call was retried and blocked again, then interrupted again.
    try signal(thread) { attempts.count >= 3 }
    #expect(!reader.isFinished)
    try writeEnd.writeAll([42])
    #expect(try reader.wait() == 42)
  }

  @Test func fileDescriptorReadIsNotBrokenBySignals() throws {
    Interruptions.install()
    let (readEnd, writeEnd) = try FileDescriptor.pipe()
    defer {
      try? readEnd.close()
      try? writeEnd.close()
    }
    let handle = ThreadHandle()
    let reader = Background { () throws -> [UInt8] in
      handle.publish()
      return try readEnd.readAll(upTo: 16)
    }
    let thread = try handle.wait()
    let before = Interruptions.count
    try signal(thread) { Interruptions.count >= before + 5 }
    #expect(!reader.isFinished)
    try writeEnd.writeAll(Array("hello".utf8))
    try writeEnd.close()
    #expect(try reader.wait() == Array("hello".utf8))
  }

  @Test func otherErrorsAreThrownAtOnce() {
    var attempts = 0
    let outcome = Result { () throws(Errno) -> Int32 in
      try retryOnInterrupt { () throws(Errno) -> Int32 in
        attempts += 1
        return try valueOrErrno(retryOnInterrupt: false) { close(-1) }
      }
    }
    #expect(outcome == .failure(.badFileDescriptor))
    #expect(attempts == 1)
  }
}
