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

  /// Claims a resume key; false when another session holds it.
  func holdResumeKey(_ key: String) -> Bool {
    resumeKeys.withLock { $0.insert(key).inserted }
  }

  func releaseResumeKeys(_ keys: [String]) {
    guard !keys.isEmpty else { return }
    resumeKeys.withLock { held in keys.forEach { held.remove($0) } }
  }
}
