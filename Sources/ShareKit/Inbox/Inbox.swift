import Foundation
import InboxStore

/// This home's Inbox as `share inbox` uses it: what arrived, moved out, deleted. The Inbox
/// store's own rules (read-only items, no overwriting, metadata) apply; its errors come back as
/// `ShareError`.
package struct Inbox: Sendable {
  private let store: InboxStore

  /// Repairs first what a killed `inbox move` or daemon left crossing the Inbox's threshold
  /// (`InboxStore.repairPassages`), unless `repairing` is false.
  package init(paths: SharePaths, repairing: Bool = true) throws(ShareError) {
    do {
      store = try InboxStore(documents: paths.documents)
    } catch {
      throw .inbox(error)
    }
    if repairing { store.repairPassages() }
  }

  /// This home's Inbox when it has one: nil before anything made it (a fresh home, where
  /// `share inbox` only reads and must not create `Documents/Inbox`; review 30 L6).
  package static func existing(paths: SharePaths) throws(ShareError) -> Inbox? {
    guard FileManager.default.fileExists(atPath: paths.inbox.path) else { return nil }
    return try Inbox(paths: paths)
  }

  /// Everything in the Inbox, oldest first, with metadata where it is known.
  package func list() -> [InboxItem] { store.list() }

  /// The item stored under exactly `name`.
  package func item(named name: String) throws(ShareError) -> InboxItem {
    do {
      return try store.item(named: name)
    } catch {
      throw .inbox(error)
    }
  }

  /// Moves an item out of the Inbox, writable again, never overwriting anything; returns
  /// where it now is (see `InboxStore.move`).
  package func move(_ name: String, to destination: URL? = nil, isInterrupted: () -> Bool = { false }) throws(ShareError) -> URL {
    do {
      return try store.move(name, to: destination, isInterrupted: isInterrupted)
    } catch {
      throw .inbox(error)
    }
  }

  /// Deletes an item (a folder with everything in it).
  package func delete(_ name: String) throws(ShareError) {
    do {
      try store.delete(name)
    } catch {
      throw .inbox(error)
    }
  }
}
