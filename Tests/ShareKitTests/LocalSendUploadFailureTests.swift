import Foundation
import LocalSend
import Synchronization
import Testing
import Wire

@testable import ShareKit

/// Review 47: an upload the LocalSend server gave up on (a checksum that did not match, a body
/// shorter than offered) was never named in the owner's log, only counted; and every failed
/// attempt's bytes stayed counted as received (`share status` showed 299%).
@Suite(.serialized) struct LocalSendUploadFailureTests {
  @Test func aFailedUploadIsNamedWithWhyAndItsBytesAreNotCounted() throws {
    let phone = try TestHome(name: "phone")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try LocalSendGateTests.Receiving(trusting: fingerprint)
    let bytes = Array("the real bytes\n".utf8)
    let wrong = String(repeating: "0", count: 64)
    let files = [FileOffer(id: "1", fileName: "note.txt", size: Int64(bytes.count), fileType: "text/plain", sha256: wrong)]
    let client = try LocalSendGateTests().client(phone)
    guard case .session(let session) = try client.prepareUpload(files, to: b.target) else {
      throw TestFailure("the contact's offer got no session")
    }
    let token = try #require(session.files["1"])
    #expect(throws: LocalSendError.self) {
      try client.upload(files[0], from: BytesSource(bytes), session: session.sessionId, token: token, to: b.target)
    }
    let failed = b.reported.events.withLock { $0 }.compactMap { event -> (String, String)? in
      if case .failed(_, let item, let reason) = event { return (item.name.unescaped, reason) } else { return nil }
    }
    #expect(failed.count == 1 && failed.first?.0 == "note.txt" && failed.first?.1.contains("SHA-256") == true, "\(failed)")
    #expect(b.transfers.all.allSatisfy { $0.bytesReceived == 0 }, "\(b.transfers.all)")
    #expect(b.home.inboxNames().isEmpty)
  }
}
