import Foundation
import Synchronization
import TextEscaping

/// A transfer in flight, as `share status` shows it.
package struct TransferStatus: Codable, Sendable, Equatable {
  package var id: Int
  package var peerName: PeerText
  /// Its name as a contact of this home, when it is one: shown first, as the log and the Inbox
  /// show a contact (review 21: a contact calling itself another contact's name showed as that).
  package var contactName: PeerText? = nil
  package var peerId: String
  package var items: Int
  package var bytesReceived: Int64
  /// The bytes the items' offers gave; an item of unknown size (standard input) adds none.
  package var bytesExpected: Int64
  package var startedAt: Date
  /// Some item's size is not known until it ends (review 38: "1.0 MiB of 0 bytes (100%)").
  package var sizeUnknown: Bool? = nil
}

/// The receiver's transfers in flight. Sessions update their own row from their threads.
package final class TransferTable: Sendable {
  private let rows = Mutex<[Int: TransferStatus]>([:])
  private let nextID = Atomic<Int>(1)

  package init() {}

  /// Adds a row and returns its ID.
  func begin(
    peerName: PeerText, contactName: PeerText? = nil, peerId: String, items: Int, bytes: Int64, sizeUnknown: Bool = false
  ) -> Int {
    let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    rows.withLock {
      $0[id] = TransferStatus(
        id: id, peerName: peerName, contactName: contactName, peerId: peerId, items: items, bytesReceived: 0, bytesExpected: bytes,
        startedAt: Date(), sizeUnknown: sizeUnknown ? true : nil)
    }
    return id
  }

  func add(_ id: Int, bytes: Int64) {
    rows.withLock { $0[id]?.bytesReceived += bytes }
  }

  func end(_ id: Int) {
    _ = rows.withLock { $0.removeValue(forKey: id) }
  }

  package var all: [TransferStatus] { rows.withLock { $0.values.sorted { $0.id < $1.id } } }
}
