import InboxStore
import Synchronization

/// What every receiving session shares: the device, the Inbox, the gatekeeper, the transfer
/// table, and the resume keys in use (so two connections never append to one staged file).
final class SessionContext: Sendable {
  let device: Device
  let store: InboxStore
  let gatekeeper: Gatekeeper?
  let transfers: TransferTable
  /// The free space always left on the disk holding the Inbox.
  let reserve: DiskReserve
  let emit: @Sendable (ReceiverEvent) -> Void
  private let resumeKeys = Mutex<Set<String>>([])
  /// Bytes of large Asks (and LocalSend offers) held now.
  let askBudget: AskBudget

  /// A stranger's Ask is at most this large (tens of thousands of items); a contact's may take
  /// the wire's 16 MiB.
  static let strangerAskLimit = 4 << 20
  /// Strangers' Asks up to this size need no share of the budget: a few hundred items each,
  /// bounded by the connection slots.
  static let smallAsk = 64 << 10
  /// What strangers' larger Asks may hold at once.
  static let strangerAskBudget = 8 << 20
  /// What contacts' larger Asks may hold at once: three of the wire's largest (100,000 items
  /// each), a few hundred MB parsed.
  static let contactAskBudget = 48 << 20

  init(
    device: Device, store: InboxStore, gatekeeper: Gatekeeper?, transfers: TransferTable, reserve: DiskReserve,
    askBudget: AskBudget = AskBudget(), emit: @escaping @Sendable (ReceiverEvent) -> Void
  ) {
    self.askBudget = askBudget
    self.device = device
    self.store = store
    self.gatekeeper = gatekeeper
    self.transfers = transfers
    self.reserve = reserve
    self.emit = emit
  }

  /// Adds a contact to the home's contacts and to the gatekeeper, unless another contact has
  /// its name or one like it by now (checked again under the contacts' lock: review 39, two
  /// pairings of one name, each accepted before either was confirmed, made two contacts of
  /// it); returns that contact, or nil when `peer` was added.
  /// A contact that pairs again is kept as it is: the name its owner gave it, whether it asks
  /// first (review 40: a pairing rewrote both).
  func trustUnlessNameTaken(_ peer: TrustedPeer) throws(ShareError) -> TrustedPeer? {
    guard let gatekeeper else { return nil }
    let contacts = Contacts(paths: device.paths)
    if let other = try contacts.trustUnlessNameTaken(peer, keepingExisting: true) { return other }
    gatekeeper.set(trust: try contacts.trusted())
    return nil
  }

  /// Takes `bytes` of the strangers' or the contacts' Ask budget; false when it would be over it.
  func reserveAsk(_ bytes: Int, stranger: Bool) -> Bool { askBudget.reserve(bytes, stranger: stranger) }

  func releaseAsk(_ bytes: Int, stranger: Bool) { askBudget.release(bytes, stranger: stranger) }

  /// Claims a resume key; false when another session holds it.
  func holdResumeKey(_ key: String) -> Bool {
    resumeKeys.withLock { $0.insert(key).inserted }
  }

  /// The resumable stagings sessions are receiving into now.
  var heldResumeKeys: Set<String> { resumeKeys.withLock { $0 } }

  func releaseResumeKeys(_ keys: [String]) {
    guard !keys.isEmpty else { return }
    resumeKeys.withLock { held in keys.forEach { held.remove($0) } }
  }
}

/// Bytes of large Asks held by the sessions that read them, across every session, strangers'
/// and contacts' apart: an Ask is parsed into structures several times its size and held while
/// it waits and while its items come (review 17: eight strangers' 16 MiB asks held 920 MB before
/// anyone was asked; review 19: eight of one contact's, 875 MB). LocalSend offers take from the
/// same budget while they are read and decided (review 26: 48 strangers' 4 MiB offers held
/// 500 MB).
final class AskBudget: Sendable {
  private let used = Mutex((strangers: 0, contacts: 0))

  /// Takes `bytes` of the strangers' or the contacts' budget; false when it would be over it.
  func reserve(_ bytes: Int, stranger: Bool) -> Bool {
    used.withLock { used in
      if stranger {
        guard used.strangers + bytes <= SessionContext.strangerAskBudget else { return false }
        used.strangers += bytes
      } else {
        guard used.contacts + bytes <= SessionContext.contactAskBudget else { return false }
        used.contacts += bytes
      }
      return true
    }
  }

  func release(_ bytes: Int, stranger: Bool) {
    guard bytes > 0 else { return }
    used.withLock { used in
      if stranger { used.strangers -= bytes } else { used.contacts -= bytes }
    }
  }
}
