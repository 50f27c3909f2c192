import Foundation
import Testing

@testable import InboxStore

@Suite struct StagingFileTests {
  @Test func directWritesThenAShortTailKeepEveryByteInOrder() throws {
    let t = try TempDocuments()
    let file = try t.store.createStagingFile()
    let aligned = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: StagingFile.directAlignment)
    defer { aligned.deallocate() }
    for index in 0..<aligned.count { aligned[index] = UInt8(index % 251) }
    // tmpfs may refuse O_DIRECT; the bytes must be right either way.
    file.useDirectIO()
    try file.write(UnsafeRawBufferPointer(aligned))
    let tail: [UInt8] = Array(repeating: 7, count: 100)
    try tail.withUnsafeBytes { try file.write($0) }
    // The short tail cannot go out with O_DIRECT: direct mode is off again, whatever the disk.
    #expect(!file.isDirect)
    #expect(file.size == Int64(aligned.count + tail.count))
    let identity = try file.finish(sync: true)
    #expect(identity.size == file.size)
    let data = try #require(FileManager.default.contents(atPath: file.url.path))
    #expect(Array(data) == Array(aligned) + tail)
  }

  @Test func aResumedPartIsReadBackAndAppendedTo() throws {
    let t = try TempDocuments()
    let record = ResumeRecord(senderId: "s", resumeKey: "k", name: "big.bin", size: 10)
    let first = try t.store.openResumable(record, offset: 0)
    try [UInt8]([1, 2, 3, 4]).withUnsafeBytes { try first.write($0) }
    t.store.keepForResume(first, record: record)
    // Looking only (the space check before the staging is claimed) leaves even a record that
    // does not match, where the claiming look discards it.
    let other = ResumeRecord(senderId: "s", resumeKey: "k", name: "big.bin", size: 11)
    #expect(t.store.resumableOffset(for: other, discarding: false) == 0)
    #expect(t.store.resumableOffset(for: record, discarding: false) == 4)
    #expect(t.store.resumableOffset(for: record) == 4)
    // Kept for resuming, unless a session is receiving into it now (review 32).
    #expect(t.store.resumableParts() == (1, 4))
    #expect(t.store.resumableParts(receiving: [record.stem]) == (0, 0))
    let resumed = try t.store.openResumable(record, offset: 4)
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 3, alignment: 1)
    defer { chunk.deallocate() }
    var prefix: [UInt8] = []
    #expect(resumed.readPrefix(4, chunk: chunk) { prefix += $0 })
    #expect(prefix == [1, 2, 3, 4])
    try [UInt8]([5, 6]).withUnsafeBytes { try resumed.write($0) }
    _ = try resumed.finish(sync: false)
    #expect(FileManager.default.contents(atPath: resumed.url.path) == Data([1, 2, 3, 4, 5, 6]))
  }
}

@Suite struct RandomHexTests {
  /// Staging names: hex digits, two a byte, every byte drawn (none stuck at zero past the eighth).
  @Test(arguments: [1, 6, 8, 9, 12, 16])
  func randomHexIsTwoDigitsAByteAndVaries(count: Int) {
    let names = (0..<200).map { _ in randomHex(count) }
    #expect(names.allSatisfy { $0.utf8.count == count * 2 && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) } })
    if count >= 6 { #expect(Set(names).count == names.count) }
    for position in 0..<count * 2 {
      let digits = Set(names.map { Array($0.utf8)[position] })
      #expect(digits.count > 8, "digit \(position) of \(count) bytes takes \(digits.count) values")
    }
  }
}
