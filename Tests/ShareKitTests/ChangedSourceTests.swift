import Foundation
import Glibc
import System
import Testing

@testable import ShareKit

/// A file sent is the file offered (review 45): one rewritten, grown, replaced or deleted
/// between the offer and its bytes (a stranger's ask may wait two minutes) is this side's
/// failure, never stored in part or as a mix of two versions, never a refusal.
@Suite struct ChangedSourceTests {
  /// Offers `name` as first written, applies `change` to it before anything is sent, sends.
  static func send(_ name: String, _ first: String, change: (URL) throws -> Void) throws -> (SendReport, TestHome) {
    let a = try TestHome()
    let b = try TestHome()
    let receiver = try RunningReceiver(home: b)
    let url = a.file(name, Array(first.utf8))
    let items = try OutgoingItem.files([url.path])
    try change(url)
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    return (report, b)
  }

  @Test func aFileRewrittenAfterItWasOfferedIsNotSent() throws {
    let changes: [(String, (URL) throws -> Void)] = [
      ("grown", { try Data(#"{"version": 2, "notes": "much longer now"}"#.utf8).write(to: $0) }),
      (
        "same size",
        { url in
          usleep(20_000)  // a modification time of its own
          try Data(#"{"version": 9}"#.utf8).write(to: url)
        }
      ),
      (
        "replaced",
        { url in
          try Data(#"{"version": 3}"#.utf8).write(to: url.appendingPathExtension("new"))
          _ = rename(url.path + ".new", url.path)
        }
      ),
      ("deleted", { try FileManager.default.removeItem(at: $0) }),
    ]
    for (what, change) in changes {
      let (report, b) = try Self.send("doc.json", #"{"version": 1}"#, change: change)
      let item = try #require(report.items.first)
      #expect(item.status == .failed && item.failedHere, "\(what): \(item)")
      #expect(!b.inboxNames().contains("doc.json"), "\(what): stored")
      #expect(b.stagingNames().isEmpty, "\(what): staging left \(b.stagingNames())")
    }
  }

  @Test func aFileThatChangesWhileItIsReadIsSeenAtItsEnd() throws {
    let home = try TestHome()
    let url = home.file("log.txt", Array("first\n".utf8))
    let file = try FileDescriptor.open(url.path, .readOnly)
    defer { try? file.close() }
    let source = ByteSource.file(file.rawValue, FileStamp(try file.status()))
    #expect(source.changedWhileRead() == nil)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("second\n".utf8))
    try handle.close()
    #expect(source.changedWhileRead()?.contains("changed while being sent") == true)
  }

  @Test func anUnchangedFileIsSentAsBefore() throws {
    let (report, b) = try Self.send("doc.json", #"{"version": 1}"#) { _ in }
    #expect(report.allStored && b.inboxNames().contains("doc.json"))
  }
}
