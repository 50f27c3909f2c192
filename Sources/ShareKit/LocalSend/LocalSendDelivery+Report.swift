import Foundation
import LocalSend
import Synchronization
import System
import TLS
import TextEscaping
import Wire

extension LocalSendDelivery {
  /// One item as a LocalSend file, and where its bytes come from.
  struct Offer {
    var id: Int
    var file: FileOffer
    var source: () throws(LocalSendError) -> any UploadSource
  }

  /// An item LocalSend cannot carry, and why.
  struct Unsupported {
    var id: Int
    var name: PeerText
    var reason: PeerText
  }

  /// The items as LocalSend files (a file from disk, a URL or text from memory); folders and
  /// streams cannot go.
  static func offers(_ items: [OutgoingItem]) -> ([Offer], [Unsupported]) {
    var offers: [Offer] = []
    var unsupported: [Unsupported] = []
    for item in items {
      let offer = item.offer
      let type = offer.type ?? "application/octet-stream"
      switch item.source {
      case .file(let url):
        let file = FileOffer(id: String(offer.id), fileName: offer.name.unescaped, size: offer.size ?? 0, fileType: type)
        offers.append(Offer(id: offer.id, file: file) { () throws(LocalSendError) in try FileSource(path: url.path) })
      case .inline(let bytes):
        let name = offer.kind == .url ? offer.name.unescaped + ".url" : offer.name.unescaped
        let file = FileOffer(id: String(offer.id), fileName: name, size: Int64(bytes.count), fileType: "text/plain")
        offers.append(Offer(id: offer.id, file: file) { BytesSource(bytes) })
      case .folder:
        unsupported.append(Unsupported(id: offer.id, name: offer.name, reason: "LocalSend cannot take a folder; send its files"))
      case .stream, .spooled:
        unsupported.append(
          Unsupported(id: offer.id, name: offer.name, reason: "LocalSend needs the size up front; save standard input to a file"))
      }
    }
    return (offers, unsupported)
  }

  /// The report before any upload: offered files with a token accepted (and, until uploaded,
  /// failed), the others refused with `refusal`, unsupported items failed.
  static func report(
    _ endpoint: Endpoint, _ peer: LocalSendPeer, _ proven: ProvenFingerprint, _ offers: [Offer],
    _ unsupported: [Unsupported], tokens: [String: String], refusal: String
  ) -> SendReport {
    var answers: [ItemVerdict] = []
    var items: [ItemOutcome] = []
    for offer in offers {
      let accepted = tokens[offer.file.id] != nil
      answers.append(
        ItemVerdict(
          ItemAnswer(id: offer.id, accepted: accepted, reason: accepted ? nil : PeerText(refusal)), name: PeerText(offer.file.fileName)))
      let receipt = ItemReceipt(
        id: offer.id, status: accepted ? .failed : .rejected, reason: accepted ? "not sent" : PeerText(refusal), size: offer.file.size)
      items.append(ItemOutcome(receipt, name: PeerText(offer.file.fileName), abandoned: nil))
    }
    for item in unsupported {
      answers.append(ItemVerdict(ItemAnswer(id: item.id, accepted: false, reason: item.reason), name: item.name))
      items.append(ItemOutcome(ItemReceipt(id: item.id, status: .failed, reason: item.reason), name: item.name, abandoned: nil))
    }
    let fingerprint = proven.fingerprint ?? Fingerprint(bytes: [UInt8](repeating: 0, count: Fingerprint.byteCount))!
    return SendReport(
      endpoint: endpoint, peerName: peer.alias, peerFingerprint: fingerprint, address: endpoint.address, answers: answers,
      items: items)
  }

  /// What a failed prepare-upload means for the whole send; `remembered`: the fingerprint
  /// pinned for the device's alias, if any.
  static func failure(_ error: LocalSendError, peer: LocalSendPeer, endpoint: Endpoint, remembered: Fingerprint?)
    -> ShareError
  {
    switch error {
    case .peerMismatch(_, let actual):
      // A pinned fingerprint that differs is the one to name (and to forget); else the claim.
      let pinned = remembered.flatMap { $0.bytes == actual.bytes ? nil : $0.hex }
      return .identityMismatch(
        expected: pinned.map { "\($0), remembered for it" } ?? "\(peer.fingerprint), the fingerprint it announced",
        actual: actual.hex, peer: PeerText(pinName(peer)))
    case .pinRequired:
      return .peerFailure(code: "refused", message: PeerText("the LocalSend device wants a PIN, which share cannot send yet"))
    case .blocked: return .peerFailure(code: "busy", message: PeerText("the LocalSend device is receiving from someone else"))
    case .tooManyAttempts: return .peerFailure(code: "busy", message: PeerText("the LocalSend device says too many requests"))
    case .cancelled: return .cancelled("cancelled")
    default:
      // The error's sentence may quote the device; its alias is PeerText, the rest is escaped here.
      return .transport("LocalSend to \(peer.alias) at \(endpoint.address) failed: \(PeerText(error.description))", detail: "\(error)")
    }
  }

  /// What it means that no address claiming the device's fingerprint proved it: for one
  /// address, what went wrong there; for several, each address and what went wrong, a
  /// certificate mismatch first.
  static func failure(
    _ failures: [(candidate: Endpoint.Candidate, error: LocalSendError)], peer: LocalSendPeer, endpoint: Endpoint,
    remembered: Fingerprint?
  ) -> ShareError {
    guard failures.count > 1 else {
      guard let only = failures.first else { return .transport("no address to send to \(peer.alias)", detail: "") }
      var reached = endpoint
      reached.candidates = [only.candidate]
      return failure(only.error, peer: peer, endpoint: reached, remembered: remembered)
    }
    let mismatched = failures.filter { if case .peerMismatch = $0.error { true } else { false } }
    let ordered = mismatched + failures.filter { if case .peerMismatch = $0.error { false } else { true } }
    // The error's sentence may quote the device; it is escaped here.
    let each = ordered.map { "\($0.candidate.address): \(PeerText($0.error.description))" }
    return .transport(
      "LocalSend to \(peer.alias) failed at each of the \(failures.count) addresses claiming its fingerprint: "
        + each.joined(separator: "; "),
      detail: ordered.map { "\($0.candidate.address): \($0.error)" }.joined(separator: "; "))
  }

  /// What a failed upload means for its file: refused (403) or failed, and why.
  static func uploadFailure(_ error: LocalSendError) -> (ItemOutcome.Status, String) {
    if case .status(let code, let message) = error {
      return (code == 403 ? .rejected : .failed, message ?? "HTTP \(code)")
    }
    return (.failed, error.description)
  }
}
