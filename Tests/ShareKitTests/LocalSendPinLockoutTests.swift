import Foundation
import LocalSend
import TLS
import Testing

@testable import ShareKit

/// With a LocalSend PIN, 10 wrong PINs a minute from anyone refuse every PIN for a minute
/// (review 17). Review 31 found that it also kept out a contact whose certificate proved it and
/// who gave the right PIN: anyone could turn LocalSend receiving off with a request every 6 s.
@Suite(.serialized) struct LocalSendPinLockoutTests {
  @Test func aContactProvenByItsCertificateWithTheRightPinIsNotHeldOutByOthersWrongPins() throws {
    let phone = try TestHome(name: "phone")
    let mallory = try TestHome(name: "mallory")
    let contact = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try LocalSendGateTests.Receiving(trusting: contact, pin: try LocalSendPin("4711"))
    let offer = [FileOffer(id: "1", fileName: "note.txt", size: 3, fileType: "text/plain")]
    for host in 71...74 {
      for _ in 0..<3 {
        let tls = try LocalSendGateTests.rawPrepareUpload(
          offer, from: mallory, source: "127.0.0.\(host)", port: b.service.server.port, pin: "0000")
        defer { tls.close() }
        let reply = try LocalSendGateTests.readReply(tls)
        #expect(reply.hasPrefix("HTTP/1.1 401") || reply.hasPrefix("HTTP/1.1 429"), "\(reply)")
      }
    }
    // Strangers are held out, even with the right PIN.
    let stranger = try LocalSendGateTests.rawPrepareUpload(
      offer, from: mallory, source: "127.0.0.75", port: b.service.server.port, pin: "4711")
    defer { stranger.close() }
    #expect(try LocalSendGateTests.readReply(stranger).hasPrefix("HTTP/1.1 429"))
    // The contact still needs the PIN...
    let sender = try LocalSendGateTests().client(phone)
    #expect(throws: LocalSendError.self) { try sender.prepareUpload(offer, to: b.target, pin: "0000") }
    // ...and with it gets in.
    guard case .session = try sender.prepareUpload(offer, to: b.target, pin: "4711") else {
      throw TestFailure("the contact got no session")
    }
  }
}
