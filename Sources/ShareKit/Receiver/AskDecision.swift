import InboxStore
import UniformTypes
import Wire

/// What a receiver takes from an Ask, and why not: the one policy of the receive path.
///
/// Names, kinds, folder entries, sizes against the receiver's limits, the per-ask byte budget,
/// free space, types by name, and the offsets to resume from: values in, a decision out, no I/O.
/// The session carries it out (and asks the owner, claims resume keys, reads staging); the
/// answer and the receipts are made from it at the wire boundary, where types become strings.
///
/// It starts from a `ValidatedAsk`: the shape Wire checked (unique ids, no negative size, entries
/// only on folders, bounded counts and names) is taken as given and never checked again.
struct AskDecision: Sendable {
  /// The decision on each offered item, in offer order.
  private(set) var items: [Item]

  /// One offered item and its fate.
  struct Item: Sendable {
    var offer: ItemOffer
    var fate: Fate
  }

  enum Fate: Sendable {
    case accepted(ItemPlan)
    /// `type`: the type decided from the name, when the item got that far (reported to the sender).
    case refused(ItemRefusal, type: TypeIdentifier?)
  }

  /// Items at least this large can resume after an interruption (smaller ones simply start over).
  static let resumableBytes: Int64 = 8 << 20

  /// Free space on the disk holding the Inbox, and what must stay free; and the files (inodes)
  /// that may still be made there, when the file system counts them, and how many must stay so
  /// (review 19: one accepted folder of 19,940 empty files, "0 bytes", left 41).
  struct Space: Sendable, Equatable {
    var free: Int64
    var reserve: Int64
    var freeFiles: Int64? = nil
    var filesReserve: Int64 = 0

    /// The files always left free: a twentieth of the file system's, at most 10,000.
    static func filesReserve(total: Int64) -> Int64 { min(10_000, total / 20) }
  }

  /// Decides on every item of `ask`: each on its own (name, kind, size, type, entries), then in
  /// offer order against the per-ask budget and, when `space` is known, the free space. `held`
  /// tells the bytes of an offered file that staging already holds for resuming: they are
  /// on the disk already, so only the rest must fit (review 31: a resume that would fit was
  /// refused for space, the held part counted twice).
  init(_ ask: ValidatedAsk, policy: ReceivePolicy, space: Space?, held: (ItemOffer) -> Int64 = { _ in 0 }) {
    var total: Int64 = 0
    items = ask.items.map { offer in
      var fate = AskDecision.judge(offer, policy: policy)
      if case .accepted(let plan) = fate {
        // What is over the budget stays counted: everything after it is refused too.
        total += plan.acceptedBytes
        if total > policy.maxAskBytes { fate = .refused(.overAskLimit(policy.maxAskBytes), type: nil) }
      }
      return Item(offer: offer, fate: fate)
    }
    if let space { refuseWhatDoesNotFit(space, held: held) }
  }

  /// The accepted items, in offer order (a copy of each: ask for it once).
  var accepted: [ItemPlan] {
    var plans: [ItemPlan] = []
    plans.reserveCapacity(acceptedCount)
    for item in items { if case .accepted(let plan) = item.fate { plans.append(plan) } }
    return plans
  }

  /// How many items are accepted.
  var acceptedCount: Int {
    items.count {
      if case .accepted = $0.fate { return true }
      return false
    }
  }

  /// The refused items with their reasons, in offer order.
  var refused: [(offer: ItemOffer, refusal: ItemRefusal, type: TypeIdentifier?)] {
    items.compactMap { item in
      if case .refused(let refusal, let type) = item.fate { return (item.offer, refusal, type) }
      return nil
    }
  }

  /// Bytes the accepted items will send (a file from its resume offset), for progress.
  var expectedBytes: Int64 {
    items.reduce(0) { total, item in
      guard case .accepted(let plan) = item.fate else { return total }
      return total + (plan.offer.kind == .folder ? plan.acceptedBytes : max(0, (plan.offer.size ?? 0) - plan.offset))
    }
  }

  /// Whether an accepted item's size is known only once it ends (standard input).
  var hasUnknownSize: Bool {
    items.contains { item in
      guard case .accepted(let plan) = item.fate else { return false }
      return plan.offer.kind != .folder && plan.offer.size == nil
    }
  }

  // MARK: Later stages

  /// Refuses every accepted item with `message` (the owner declined the ask). Returns them.
  @discardableResult
  mutating func decline(_ message: String) -> [ItemPlan] {
    let declined = accepted
    for index in items.indices {
      if case .accepted(let plan) = items[index].fate { items[index].fate = .refused(.declined(message), type: plan.type) }
    }
    return declined
  }

  /// The accepted files that may resume: a known size of at least `resumableBytes` and the
  /// sender's resume key. The record names the staging that would hold their bytes.
  func resumable(senderId: String) -> [(id: Int, record: ResumeRecord)] {
    items.compactMap { item in
      guard case .accepted(let plan) = item.fate, let record = Self.resumeRecord(plan.offer, senderId: senderId) else { return nil }
      return (plan.offer.id, record)
    }
  }

  /// The staging record an offered file would resume from, when it may resume.
  static func resumeRecord(_ offer: ItemOffer, senderId: String) -> ResumeRecord? {
    guard offer.kind == .file, let size = offer.size, size >= resumableBytes, let key = offer.resumeKey else { return nil }
    return ResumeRecord(senderId: senderId, resumeKey: key, name: offer.name.unescaped, size: size)
  }

  /// Item `id` is received into the resumable staging `record`, which already holds `offset`
  /// bytes (an offset that is not inside the item counts as none).
  mutating func resume(_ id: Int, record: ResumeRecord, offset: Int64) {
    guard let index = items.firstIndex(where: { $0.offer.id == id }), case .accepted(var plan) = items[index].fate else { return }
    plan.resume = record
    plan.offset = (0..<(plan.offer.size ?? 0)).contains(offset) ? offset : 0
    items[index].fate = .accepted(plan)
  }

  // MARK: One item

  /// Judges one offered item from what it says of itself.
  static func judge(_ offer: ItemOffer, policy: ReceivePolicy) -> Fate {
    var name: String
    do {
      name = try InboxName.sanitize(offer.name.unescaped)
    } catch {
      return .refused(.unsafeName(error), type: nil)
    }
    // A URL or a text is stored as what it is, whatever name it came with.
    switch offer.kind {
    case .url: name = InboxName.withExtension(name, "url")
    case .text: name = InboxName.withExtension(name, "txt")
    case .file, .folder: break
    }
    if offer.kind == .folder, offer.entries == nil { return .refused(.folderWithoutEntries, type: nil) }
    if VersionControl.isControlName(name) || VersionControl.marksGitDirectory(name, isFolder: offer.kind == .folder) {
      return .refused(.versionControl, type: nil)
    }
    if offer.kind == .url || offer.kind == .text, (offer.size ?? Int64.max) > ReceivePolicy.maxInlineBytes {
      return .refused(.inlineTooLarge(offer.kind, limit: ReceivePolicy.maxInlineBytes), type: nil)
    }
    if let size = offer.size, size > policy.maxItemBytes {
      return .refused(.tooLarge(size: size, limit: policy.maxItemBytes), type: nil)
    }
    let verdict = policy.judge(name: name, kind: offer.kind)
    if let verdict, !verdict.accepted { return .refused(.type(verdict), type: verdict.type) }
    var plan = ItemPlan(offer: offer, storedName: name, verdict: verdict)
    guard offer.kind == .folder else { return .accepted(plan) }
    plan.entries = judgeEntries(of: offer, policy: policy)
    let offered = plan.offeredFiles
    if offered > 0 && plan.acceptedFiles == 0 { return .refused(.noFileAccepted(offered: offered), type: verdict?.type) }
    return .accepted(plan)
  }

  /// Judges each entry of an offered folder: a safe relative path, not seen twice, not in a
  /// version-control folder or a folder the type rules refuse by name, and (for a file) within
  /// the size limit and accepted by the type rules from its name.
  static func judgeEntries(of offer: ItemOffer, policy: ReceivePolicy) -> [EntryPlan] {
    var seen = Set<[String]>()
    let paths = (offer.entries ?? []).map { entry in
      Result { () throws(InboxName.Problem) in try InboxName.sanitize(relativePath: entry.path.unescaped) }
    }
    let safe = zip(offer.entries ?? [], paths).compactMap { entry, path in
      (try? path.get()).map { (components: $0, isFolder: entry.kind == .folder) }
    }
    let repositories = VersionControl.Prefixes(VersionControl.repositories(among: safe))
    let refusedFolders = RefusedFolders(among: safe, judge: { policy.judge(name: $0, kind: .folder) })
    return zip(offer.entries ?? [], paths).map { entry, path in
      let components: [String]
      do throws(InboxName.Problem) {
        components = try path.get()
      } catch {
        return .refused(.unsafePath(error))
      }
      guard seen.insert(components).inserted else { return .refused(.duplicatePath) }
      if VersionControl.holds(components, repositories: repositories) { return .refused(.versionControl) }
      if let verdict = refusedFolders.verdict(for: components) { return .refused(.type(verdict)) }
      switch entry.kind {
      case .folder:
        return .folder(components)
      case .file:
        if entry.size > policy.maxItemBytes { return .refused(.tooLarge(size: entry.size, limit: policy.maxItemBytes)) }
        if let verdict = policy.judge(name: components[components.count - 1], kind: .file), !verdict.accepted {
          return .refused(.type(verdict))
        }
        return .file(components)
      case .url, .text:
        return .refused(.notFileOrFolder)
      }
    }
  }

  /// Refuses, in offer order, the accepted items that would not leave `space.reserve` bytes
  /// free, or `space.filesReserve` files.
  private mutating func refuseWhatDoesNotFit(_ space: Space, held: (ItemOffer) -> Int64) {
    var budget = space.free - space.reserve
    var files = space.freeFiles.map { $0 - space.filesReserve } ?? .max
    for index in items.indices {
      guard case .accepted(let plan) = items[index].fate else { continue }
      let kept = plan.offer.kind == .file ? min(max(0, held(plan.offer)), plan.acceptedBytes) : 0
      let needed = plan.acceptedBytes - kept
      if needed > budget {
        items[index].fate = .refused(.noSpace(reserve: space.reserve), type: plan.type)
      } else if plan.acceptedEntries + 1 > files {
        items[index].fate = .refused(.noFiles(reserve: space.filesReserve), type: plan.type)
      } else {
        budget -= needed
        files -= plan.acceptedEntries + 1
      }
    }
  }
}

/// An accepted item: what the receiver will do with its bytes.
struct ItemPlan: Sendable {
  var offer: ItemOffer
  /// The name it will be stored under (before collision suffixes).
  var storedName: String
  /// The type rules' verdict on its name (or kind); nil without type rules.
  var verdict: Verdict?
  /// A folder's entries, in offer order (empty for anything else).
  var entries: [EntryPlan] = []
  /// For a resumable file: its record, and the bytes staging already holds.
  var resume: ResumeRecord? = nil
  var offset: Int64 = 0

  /// The type decided from the name, when there are type rules.
  var type: TypeIdentifier? { verdict?.type }

  var offeredFiles: Int { (offer.entries ?? []).filter { $0.kind == .file }.count }
  var acceptedFiles: Int {
    entries.filter {
      if case .file = $0 { return true }
      return false
    }.count
  }
  var refusedEntries: Int {
    entries.filter {
      if case .refused = $0 { return true }
      return false
    }.count
  }
  /// The entries (files and folders) of a folder that will be made.
  var acceptedEntries: Int64 { Int64(entries.count - refusedEntries) }

  /// The bytes it counts for against the budget and the free space: the sizes its accepted
  /// entries declare for a folder, the declared size for anything else (unknown counts as none).
  var acceptedBytes: Int64 {
    guard offer.kind == .folder else { return offer.size ?? 0 }
    return zip(offer.entries ?? [], entries).reduce(Int64(0)) { total, pair in
      if case .refused = pair.1 { return total }
      return total + pair.0.size
    }
  }

  /// What the answer says of an accepted item: a folder's "N of M files" note, or its verdict's
  /// reason; nothing for anything else (it would only repeat the rule, thousands of times in a
  /// large Ask).
  var note: String? {
    guard offer.kind == .folder else { return nil }
    if acceptedFiles < offeredFiles { return "accepted \(acceptedFiles) of its \(offeredFiles) files" }
    return verdict?.reason ?? "accepted"
  }
}

/// What becomes of one entry of an accepted folder.
enum EntryPlan: Sendable, Equatable {
  /// A sub-folder, at these sanitized path components.
  case folder([String])
  /// A file whose bytes will come, at these sanitized path components.
  case file([String])
  case refused(EntryRefusal)
}

extension AskDecision {
  /// The Answer: the decision in the wire's terms (types as strings).
  var answer: Answer {
    Answer(
      items: items.map { item in
        switch item.fate {
        case .accepted(let plan):
          return ItemAnswer(
            id: item.offer.id, accepted: true, reason: plan.note.map { PeerText($0) }, type: plan.type?.rawValue, offset: plan.offset,
            entries: item.offer.kind == .folder ? plan.entries.map(\.answer) : nil)
        case .refused(let refusal, let type):
          return ItemAnswer(id: item.offer.id, accepted: false, reason: PeerText(refusal.reason), type: type?.rawValue)
        }
      })
  }
}

extension EntryPlan {
  var answer: EntryAnswer {
    if case .refused(let refusal) = self { return EntryAnswer(accepted: false, reason: PeerText(refusal.reason)) }
    return EntryAnswer(accepted: true)
  }
}

extension AskDecision {
  /// The items of the decision as `share requests` shows them (the types' descriptions, and the
  /// command that would accept a refused one).
  /// A folder is shown by what its accepted entries declare — their bytes and how many files —
  /// whatever size the sender gave the folder itself.
  func askedItems(types: TypeGate?) -> [AskedItem] {
    zip(items, answer.items).map { item, answer in
      var asked = AskedItem(
        name: item.offer.name, kind: item.offer.kind.rawValue, size: item.offer.size, type: answer.type,
        accepted: answer.accepted, reason: answer.reason, typeDescription: types?.describe(answer.type),
        acceptWith: answer.accepted ? nil : types?.acceptCommand(name: item.offer.name.unescaped, kind: item.offer.kind))
      if case .accepted(let plan) = item.fate, item.offer.kind == .folder {
        asked.size = plan.acceptedBytes
        asked.files = plan.acceptedFiles
      }
      return asked
    }
  }
}
