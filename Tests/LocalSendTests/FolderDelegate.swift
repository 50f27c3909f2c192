import Foundation
import Glibc
import LocalSend
import Synchronization

/// A receiving policy for tests that stores accepted files into a folder, each through a
/// temporary file renamed on commit (so nothing partial appears). It refuses offered names
/// ending in `.exe`, and refuses mid-stream a `.png` whose first bytes are an ELF header: the
/// two ways a real policy says no.
final class FolderDelegate: LocalSendDelegate, Sendable {
  let folder: URL
  let decision: @Sendable (IncomingOffer) -> OfferDecision
  private let log = Mutex<[String]>([])
  private let offers = Mutex<[IncomingOffer]>([])
  private let ends = Mutex<[(String, SessionEnd)]>([])
  private let registrations = Mutex<[RemoteSender]>([])
  let decided = DispatchSemaphore(value: 0)
  let ended = DispatchSemaphore(value: 0)

  init(folder: URL, decision: (@Sendable (IncomingOffer) -> OfferDecision)? = nil) {
    self.folder = folder
    self.decision =
      decision ?? { offer in
        .accept(Set(offer.files.filter { !$0.fileName.hasSuffix(".exe") }.map(\.id)))
      }
  }

  var receivedOffers: [IncomingOffer] { offers.withLock { $0 } }
  var sessionEnds: [(String, SessionEnd)] { ends.withLock { $0 } }
  var registered: [RemoteSender] { registrations.withLock { $0 } }
  var events: [String] { log.withLock { $0 } }

  func localSend(registered sender: RemoteSender) {
    registrations.withLock { $0.append(sender) }
  }

  func localSend(decide offer: IncomingOffer, cancellation: OfferCancellation) -> OfferDecision {
    offers.withLock { $0.append(offer) }
    defer { decided.signal() }
    return decision(offer)
  }

  func localSend(open file: AcceptedFile) throws(UploadRefusal) -> any UploadSink {
    let name = file.offer.fileName.replacingOccurrences(of: "/", with: "_")
    do {
      return try FolderSink(folder: folder, name: name, checkELF: name.hasSuffix(".png"), log: { [self] in note($0) })
    } catch {
      throw UploadRefusal(.failed, "cannot create the file")
    }
  }

  func localSend(sessionEnded sessionID: String, _ end: SessionEnd) {
    ends.withLock { $0.append((sessionID, end)) }
    ended.signal()
  }

  func note(_ event: String) { log.withLock { $0.append(event) } }
}

/// Streams into `.name.partial`, renamed to `name` on commit, removed on abort.
final class FolderSink: UploadSink {
  let partial: URL
  let final: URL
  let handle: FileHandle
  let checkELF: Bool
  let log: (String) -> Void
  var written = 0

  init(folder: URL, name: String, checkELF: Bool, log: @escaping (String) -> Void) throws {
    partial = folder.appendingPathComponent(".\(name).partial")
    final = folder.appendingPathComponent(name)
    guard FileManager.default.createFile(atPath: partial.path, contents: nil) else { throw TestFailure("create") }
    handle = try FileHandle(forWritingTo: partial)
    self.checkELF = checkELF
    self.log = log
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws(UploadRefusal) {
    if checkELF && written == 0 && bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) {
      log("refused \(final.lastPathComponent): ELF")
      throw UploadRefusal(.rejected, "Rejected: the content is an executable, not an image")
    }
    handle.write(Data(bytes))
    written += bytes.count
  }

  func commit() throws(UploadRefusal) {
    try? handle.synchronize()
    try? handle.close()
    guard rename(partial.path, final.path) == 0 else { throw UploadRefusal(.failed, "cannot place the file") }
    log("stored \(final.lastPathComponent)")
  }

  func abort() {
    try? handle.close()
    unlink(partial.path)
    log("aborted \(final.lastPathComponent)")
  }
}
