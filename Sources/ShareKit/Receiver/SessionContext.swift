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
  /// Bytes of strangers' large Asks being read, decided or waiting for the owner, across every
  /// session: an Ask is parsed into structures several times its size and held while it waits
  /// (review 17: eight 16 MiB asks from one address held 920 MB before anyone was asked).
  private let strangerAskBytes = Mutex(0)

  /// A stranger's Ask is at most this large (tens of thousands of items); a contact's may take
  /// the wire's 16 MiB.
  static let strangerAskLimit = 4 << 20
  /// Strangers' Asks up to this size need no share of the budget: a few hundred items each,
  /// bounded by the connection slots.
  static let smallAsk = 64 << 10
  /// What strangers' larger Asks may hold at once.
  static let strangerAskBudget = 8 << 20

  init(
    device: Device, store: InboxStore, gatekeeper: Gatekeeper?, transfers: TransferTable, reserve: DiskReserve,
    emit: @escaping @Sendable (ReceiverEvent) -> Void
  ) {
    self.device = device
    self.store = store
    self.gatekeeper = gatekeeper
    self.transfers = transfers
    self.reserve = reserve
    self.emit = emit
  }

  /// Adds a contact to the home's contacts and to the gatekeeper.
  func trust(_ peer: TrustedPeer) throws(ShareError) {
    guard let gatekeeper else { return }
    gatekeeper.set(trust: try Contacts(paths: device.paths).trust(peer))
  }

  /// Takes `bytes` of the strangers' Ask budget; false when it would be over it.
  func reserveStrangerAsk(_ bytes: Int) -> Bool {
    strangerAskBytes.withLock { used in
      guard used + bytes <= Self.strangerAskBudget else { return false }
      used += bytes
      return true
    }
  }

  func releaseStrangerAsk(_ bytes: Int) {
    guard bytes > 0 else { return }
    strangerAskBytes.withLock { $0 -= bytes }
  }

  /// Claims a resume key; false when another session holds it.
  func holdResumeKey(_ key: String) -> Bool {
    resumeKeys.withLock { $0.insert(key).inserted }
  }

  func releaseResumeKeys(_ keys: [String]) {
    guard !keys.isEmpty else { return }
    resumeKeys.withLock { held in keys.forEach { held.remove($0) } }
  }
}
