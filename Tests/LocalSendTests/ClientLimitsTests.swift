import Foundation
import LocalSend
import System
import TLS
import Testing

/// A LocalSend send can always be stopped, and a device cannot hold it (review 47): Ctrl-C while
/// the device's owner has not answered ended nothing until the 300 s decision time was over, and
/// an answer whose body trickled in a byte at a time held a send for as long as it trickled.
@Suite struct ClientLimitsTests {
  @Test func abortingEndsARequestWaitingForTheOwnersDecision() throws {
    let offered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let harness = try ServerHarness(decision: { _ in
      offered.signal()
      _ = release.wait(timeout: .now() + 60)
      return .decline
    })
    defer {
      release.signal()
      harness.stop()
    }
    let file = FileOffer(id: "f", fileName: "f.txt", size: 1, fileType: "text/plain")
    let client = harness.client
    let waiting = Background { () throws -> String in
      do throws(LocalSendError) {
        _ = try client.prepareUpload([file], to: harness.target)
        return "answered"
      } catch {
        if case .cancelled = error { return "cancelled" }
        return "\(error)"
      }
    }
    #expect(offered.wait(timeout: .now() + 30) == .success, "the offer never reached the owner")
    client.abortAll()
    // Bounded only so that a broken abort fails the test instead of hanging it.
    #expect(try waiting.wait(seconds: 30) == "cancelled")
    // And nothing more goes out from it.
    #expect(throws: LocalSendError.self) { try client.info(harness.target) }
  }

  @Test func anAnswerWhoseBodyTricklesEndsAtItsDeadline() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let server = try DrippingServer(identity: try makeIdentity(in: directory, name: "phone"))
    defer { server.stop() }
    let identity = try makeIdentity(in: directory, name: "sender")
    let me = LocalSendDevice(
      alias: "sender", deviceModel: "Linux", deviceType: .desktop, fingerprint: LocalSendFingerprint(identity: identity)!.hex, port: 1)
    let client = try LocalSendClient(identity: identity, device: me, answerBodyTimeout: .seconds(1))
    let asked = Background { () throws -> String in
      do {
        _ = try client.info(LocalSendTarget(host: "127.0.0.1", port: server.port))
        return "answered"
      } catch {
        return "\(error)"
      }
    }
    let outcome = try asked.wait(seconds: 60)
    #expect(outcome.contains("timedOut") || outcome.contains("timed out"), "\(outcome)")
  }
}

/// A device that answers any request at once with a 100,000-byte body, then sends it a byte
/// every 100 ms.
final class DrippingServer: Sendable {
  private let listener: TCPListener

  init(identity: DeviceIdentity) throws {
    listener = try TCPListener(host: "127.0.0.1", port: 0)
    let context = try TLSContext(identity: identity, role: .server, clientCertificates: .optional)
    let listener = self.listener
    Thread.detachNewThread {
      while let socket = try? listener.accept() {
        Thread.detachNewThread {
          guard let tls = try? TLSConnection.accept(socket, context: context, timeout: .seconds(5)) else { return }
          defer { tls.close() }
          let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
          defer { buffer.deallocate() }
          _ = try? tls.read(into: buffer)
          let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
          guard (try? Array(head.utf8).withUnsafeBytes({ try tls.write($0) })) != nil else { return }
          // Until the client hangs up: a write then fails.
          for _ in 0..<100_000 {
            guard (try? [UInt8(ascii: " ")].withUnsafeBytes({ try tls.write($0) })) != nil else { return }
            usleep(100_000)
          }
        }
      }
    }
  }

  var port: UInt16 { listener.port }

  func stop() { listener.close() }
}
