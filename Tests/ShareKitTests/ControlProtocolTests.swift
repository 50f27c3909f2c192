import Foundation
import Testing

@testable import ShareKit

/// The control socket's requests: an enum on the JSON shape the daemon has always read.
@Suite struct ControlProtocolTests {
  static func json(_ request: ControlRequest) throws -> String {
    String(decoding: try ControlCoding.encoder.encode(request), as: UTF8.self)
  }

  static func decode(_ text: String) throws -> ControlRequest {
    try ControlCoding.decoder.decode(ControlRequest.self, from: Data(text.utf8))
  }

  @Test(arguments: [
    ControlRequest.status, .requests, .reload, .accept(id: 3, trust: true), .accept(id: 4, trust: false),
    .decline(id: 5), .receive(mode: .everyone, forSeconds: 600), .receive(mode: .off, forSeconds: nil),
  ])
  func everyRequestSurvivesTheRoundTrip(_ request: ControlRequest) throws {
    #expect(try Self.decode(try Self.json(request)) == request)
  }

  @Test func theJSONShapeIsACommandWithItsFields() throws {
    #expect(try Self.json(.accept(id: 3, trust: true)) == #"{"command":"accept","id":3,"trust":true}"#)
    #expect(try Self.json(.receive(mode: .everyone, forSeconds: 600)) == #"{"command":"receive","for_seconds":600,"mode":"everyone"}"#)
    #expect(try Self.json(.status) == #"{"command":"status"}"#)
    #expect(try Self.decode(#"{"command":"decline","id":7}"#) == .decline(id: 7))
    #expect(try Self.decode(#"{"command":"accept","id":7}"#) == .accept(id: 7, trust: false))
  }

  @Test func aRequestMissingWhatItNeedsOrUnknownSaysWhat() {
    #expect(throws: ControlRequest.Invalid(message: "which ask? (an ID from 'share requests')")) {
      try Self.decode(#"{"command":"accept"}"#)
    }
    #expect(throws: ControlRequest.Invalid(message: "which mode?")) { try Self.decode(#"{"command":"receive"}"#) }
    #expect(throws: ControlRequest.Invalid(message: "unknown request reboot")) { try Self.decode(#"{"command":"reboot"}"#) }
    #expect(throws: DecodingError.self) { try Self.decode(#"{"command":"receive","mode":"sometimes"}"#) }
  }
}
