import Foundation
import Synchronization

/// Multicast discovery (§3.1): announces this device on a `MulticastChannel`, reports every
/// other device heard, and answers announcements the way the document asks: a
/// `POST /register` to the announcer over HTTPS, or, when that fails, a multicast answer
/// (`announce: false`). Datagrams that are not valid LocalSend messages are dropped; this
/// device's own (same fingerprint) are ignored.
///
/// `@unchecked Sendable`: the channel and client are thread-safe, the rest immutable or in a
/// `Mutex`.
package final class MulticastDiscovery: @unchecked Sendable {
  /// A device heard on the channel.
  package struct Heard: Sendable, Equatable {
    /// Where the datagram came from: the device's HTTP server is at this address, on
    /// `device.port`.
    package let address: String
    package let device: LocalSendDevice
    /// True for an announcement, false for an answer.
    package let announce: Bool
  }

  package let channel: MulticastChannel
  package let device: LocalSendDevice
  private let client: LocalSendClient?
  private let limits: LocalSendLimits
  private let heard: @Sendable (Heard) -> Void
  private let answering = Mutex(0)
  private let throttle: Mutex<AnswerThrottle>
  private let finished = DispatchSemaphore(value: 0)

  /// Register answers run at once at most; more announcements are answered by multicast.
  static let maxConcurrentAnswers = 4

  /// `client` registers with announcers; without one, announcements are answered by multicast.
  /// At most one multicast answer goes out per `answerEvery`, and one register per announcer
  /// address per `registerEvery` (`AnswerThrottle`).
  package init(
    channel: MulticastChannel, device: LocalSendDevice, client: LocalSendClient?,
    limits: LocalSendLimits = .default, answerEvery: Duration = .seconds(1), registerEvery: Duration = .seconds(5),
    heard: @escaping @Sendable (Heard) -> Void
  ) {
    self.channel = channel
    self.device = device
    self.client = client
    self.limits = limits
    self.heard = heard
    throttle = Mutex(AnswerThrottle(multicastEvery: answerEvery, registerEvery: registerEvery))
  }

  /// Starts listening on a thread of its own.
  package func start() {
    let thread = Thread { [self] in
      receiveLoop()
      finished.signal()
    }
    thread.name = "localsend-multicast"
    thread.start()
  }

  /// Closes the channel and waits for the listening thread.
  package func stop() {
    channel.close()
    _ = finished.wait(timeout: .now() + 5)
  }

  /// Sends this device's announcement.
  package func announce() throws(LocalSendError) {
    try channel.send(Self.encode(MulticastMessage(device: device, announce: true)))
  }

  /// A datagram as a LocalSend message, if it is a valid one.
  package static func parse(_ bytes: [UInt8], limits: LocalSendLimits = .default) -> MulticastMessage? {
    guard let message = try? Validation.decode(MulticastMessage.self, from: bytes, limit: limits.maxRegisterBodyBytes),
      (try? Validation.check(message.device, at: "message", limits: limits)) != nil
    else { return nil }
    return message
  }

  static func encode(_ message: MulticastMessage) -> [UInt8] {
    (try? JSONEncoder().encode(message)).map { [UInt8]($0) } ?? []
  }

  private func receiveLoop() {
    while true {
      let datagram: MulticastChannel.Datagram?
      do {
        datagram = try channel.receive()
      } catch {
        return
      }
      guard let datagram else { return }
      guard let message = Self.parse(datagram.bytes, limits: limits),
        message.device.fingerprint.lowercased() != device.fingerprint.lowercased()
      else { continue }
      heard(Heard(address: datagram.sourceAddress, device: message.device, announce: message.announce))
      if message.announce { answer(message.device, at: datagram.sourceAddress) }
    }
  }

  /// Registers with an announcer on a short-lived thread, or answers by multicast; an announcer
  /// registered with lately is not again, and multicast answers are spaced (`AnswerThrottle`).
  private func answer(_ announcer: LocalSendDevice, at address: String) {
    let multicastAnswer: @Sendable () -> Void = { [self] in
      guard throttle.withLock({ $0.mayMulticast() }) else { return }
      try? channel.send(Self.encode(MulticastMessage(device: device, announce: false)))
    }
    let registers = client != nil && announcer.scheme == .https
    if registers, !throttle.withLock({ $0.mayRegister(address) }) { return }
    guard let client, registers, let port = UInt16(exactly: announcer.port),
      answering.withLock({ count in
        guard count < Self.maxConcurrentAnswers else { return false }
        count += 1
        return true
      })
    else {
      multicastAnswer()
      return
    }
    let claimed = announcer.fingerprint
    Thread.detachNewThread { [self] in
      defer { answering.withLock { $0 -= 1 } }
      let target = LocalSendTarget(host: address, port: port, check: .custom { $0.matches(claimed) })
      if (try? client.register(target)) == nil { multicastAnswer() }
    }
  }
}
