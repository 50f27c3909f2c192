import TextEscaping
import Wire

/// What a sender checks in a receiver's answers before it believes them. A receiver may lie: an
/// answer about an item never offered, an item answered twice or not at all, a resume offset
/// past the end of a file (or for an item that cannot resume), a receipt that stores what it
/// refused. Each is a protocol error that names the receiver. Pure: the checks are functions of
/// the offer and the answers.
struct ReceiverClaims {
  /// The receiver's name as its Hello gave it and the address it was reached at.
  let peerName: PeerText
  let address: String
  let offers: [ItemOffer]
  /// Where each offered ID is in `offers` (an index, not a copy of the offer: the checks look
  /// up every ID of an answer and a receipt, 5,000 of them for a folder of small files).
  private let offered: [Int: Int]

  init(peerName: PeerText, address: String, offers: [ItemOffer]) {
    self.peerName = peerName
    self.address = address
    self.offers = offers
    offered = Dictionary(offers.indices.map { (offers[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The name an item was offered under.
  func name(of id: Int) -> PeerText {
    offered[id].map { offers[$0].name } ?? PeerText("#\(id)")
  }

  /// Throws unless `answer` has one verdict for each offered item and nothing else, resume
  /// offsets only for accepted files that can resume and within their bytes, and one verdict
  /// per offered entry of an accepted folder.
  func check(_ answer: Answer) throws(ShareError) {
    try checkCoverage(answer.items.map(\.id), in: "answer")
    for verdict in answer.items {
      guard let index = offered[verdict.id] else { continue }
      if let problem = Self.problem(with: verdict, for: offers[index]) { throw violation(problem) }
    }
  }

  /// Throws unless `receipt` says what became of each offered item once, of nothing else, and
  /// stores nothing the answer refused.
  func check(_ receipt: Receipt, after answer: Answer) throws(ShareError) {
    try checkCoverage(receipt.items.map(\.id), in: "receipt")
    let refused = Set(answer.items.filter { !$0.accepted }.map(\.id))
    for item in receipt.items where item.status == .stored {
      if refused.contains(item.id) {
        throw violation("its receipt says it stored \(shown(name(of: item.id))), which it refused")
      }
    }
  }

  /// Each offered ID exactly once in `ids` (what the receiver's `message` is about), and no other.
  private func checkCoverage(_ ids: [Int], in message: String) throws(ShareError) {
    var seen = Set<Int>()
    for id in ids {
      guard offered[id] != nil else {
        throw violation("its \(message) is about item #\(id), which was never offered")
      }
      guard seen.insert(id).inserted else { throw violation("its \(message) is about \(shown(name(of: id))) twice") }
    }
    if let missing = offers.first(where: { !seen.contains($0.id) }) {
      throw violation("its \(message) says nothing about \(shown(missing.name))")
    }
  }

  /// What is wrong with one verdict, or nil.
  static func problem(with verdict: ItemAnswer, for offer: ItemOffer) -> String? {
    let name = shown(offer.name)
    if let offset = verdict.offset, offset != 0 {
      guard verdict.accepted, offset > 0 else { return "it sent a resume offset of \(offset) for \(name), which it did not accept" }
      guard offer.kind == .file, let size = offer.size, offer.resumeKey != nil else {
        return "it sent a resume offset of \(offset) for \(name), which cannot resume"
      }
      guard offset <= size else { return "it sent a resume offset of \(offset) for \(name), past its end (\(size) bytes)" }
    }
    if verdict.accepted, offer.kind == .folder, (verdict.entries?.count ?? 0) != (offer.entries?.count ?? 0) {
      return "it answered \(verdict.entries?.count ?? 0) entries of \(name), which has \(offer.entries?.count ?? 0)"
    }
    return nil
  }

  private func violation(_ problem: String) -> ShareError {
    .protocolViolation(peer: peerName.shown(limit: Escaping.maximumLength), address: address, problem: problem)
  }

  private func shown(_ name: PeerText) -> String { Self.shown(name) }
  private static func shown(_ name: PeerText) -> String { Escaping.quoted(name.unescaped) }
}
