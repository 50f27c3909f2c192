import Testing

@testable import ShareKit

/// Review 36 L8: a send that reached none of a receiver's addresses joined each address's
/// sentence with "; " after its own full stop: "could not reach lab: … timed out.; lab at …".
@Suite struct RaceFailureTests {
  @Test func eachAddressesFailureIsJoinedWithoutItsFullStop() {
    let endpoint = Endpoint(
      candidates: [
        Endpoint.Candidate(host: "192.0.2.1", port: 1, advertisedAs: "lab"),
        Endpoint.Candidate(host: "192.0.2.2", port: 1, advertisedAs: "lab"),
      ], label: "lab", expectedFingerprint: nil)
    let failures: [(candidate: Endpoint.Candidate, error: any Error)] = endpoint.candidates.map {
      ($0, ShareError.transport("the connection timed out.", detail: ""))
    }
    let message = Sender.failure(of: endpoint, failures).description
    #expect(!message.contains(".;") && message.contains("timed out; lab at 192.0.2.2:1"), "\(message)")
    let one = Sender.failure(of: endpoint, Array(failures.prefix(1))).description
    #expect(one.contains("timed out."), "a single address keeps its sentence: \(one)")
  }
}
