import Dispatch
import Foundation
import System

/// Watches an idle connection on a thread of its own while the thread that owns it waits on
/// something else (the owner's answer to an ask): the moment the peer hangs up or sends
/// anything — a sender pressing Ctrl-C, or going away — `departed` runs, once. `stop()` ends
/// the watch and waits for its thread; nothing the peer sent is read here.
package final class PeerWatch: Sendable {
  private let wake: (read: FileDescriptor, write: FileDescriptor)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts watching; nil when no wake-up pipe can be made (the ask then simply waits).
  package init?(_ tls: TLSConnection, departed: @escaping @Sendable () -> Void) {
    guard let wake = try? FileDescriptor.pipe() else { return nil }
    self.wake = (wake.readEnd, wake.writeEnd)
    let finished = self.finished
    let thread = Thread {
      if tls.waitForPeer(orWake: wake.readEnd.rawValue) { departed() }
      finished.signal()
    }
    thread.name = "share-peer-watch"
    thread.start()
  }

  /// Ends the watch (if the peer has not left already) and waits for its thread to finish.
  package func stop() {
    try? wake.write.writeAll([UInt8(1)])
    finished.wait()
    try? wake.read.close()
    try? wake.write.close()
  }
}
