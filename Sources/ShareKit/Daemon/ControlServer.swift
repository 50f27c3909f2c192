import Foundation
import Glibc
import Synchronization
import System

/// Serves the daemon's control socket on a thread of its own: one JSON request per connection,
/// one JSON response, from the same user only.
///
/// `@unchecked Sendable`: the listening descriptor is set once; `stop()` shuts it down from any
/// thread, which wakes the blocked accept.
package final class ControlServer: @unchecked Sendable {
  private let fd: Int32
  private let path: String
  private let handle: @Sendable (ControlRequest) -> ControlResponse
  private let stopped = Atomic<Bool>(false)

  /// Listens at `paths.controlSocket`, once its folder is made and checked owner-only (see
  /// `ControlSocketFolder`: a shared folder that another user could have made is refused).
  package init(paths: SharePaths, handle: @escaping @Sendable (ControlRequest) -> ControlResponse) throws(ShareError) {
    try ControlSocketFolder.prepare(paths)
    path = paths.controlSocket.path
    self.handle = handle
    fd = try UnixSocket.listen(at: path)
  }

  package func start() {
    let thread = Thread { [self] in serve() }
    thread.name = "share-control"
    thread.start()
  }

  /// Stops serving and removes the socket file.
  package func stop() {
    guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
    shutdown(fd, Int32(SHUT_RDWR))
    unlink(path)
  }

  private func serve() {
    while !stopped.load(ordering: .sequentiallyConsistent) {
      let client: Int32
      do {
        client = try FileDescriptor(rawValue: fd).accept().rawValue
      } catch {
        if stopped.load(ordering: .sequentiallyConsistent) { break }
        Thread.sleep(forTimeInterval: 0.05)
        continue
      }
      // Each request is answered on its own thread: an `accept` may wait for nothing, but a
      // slow client must not hold up the next one.
      let thread = Thread { [self] in
        answer(client)
        close(client)
      }
      thread.start()
    }
    close(fd)
  }

  private func answer(_ client: Int32) {
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let response: ControlResponse
    if UnixSocket.peerUID(client) != getuid() {
      response = ControlResponse(ok: false, error: "this daemon belongs to another user")
    } else if let line = UnixSocket.readLine(client, limit: ControlRequest.maxBytes) {
      do {
        response = handle(try ControlCoding.decoder.decode(ControlRequest.self, from: line))
      } catch let invalid as ControlRequest.Invalid {
        response = ControlResponse(ok: false, error: invalid.message)
      } catch {
        response = ControlResponse(ok: false, error: "malformed request")
      }
    } else {
      response = ControlResponse(ok: false, error: "malformed request")
    }
    var data = (try? ControlCoding.encoder.encode(response)) ?? Data("{\"ok\":false}".utf8)
    data.append(0x0A)
    UnixSocket.writeAll(client, data)
  }
}

/// Talks to a running daemon over its control socket.
package enum ControlClient {
  /// How long a request waits for the daemon's answer (beyond what the request itself waits).
  package static let answerTimeout: Duration = .seconds(10)

  /// Sends one request and returns the daemon's response; a failed request is an error. The
  /// socket must be served by this user (`SO_PEERCRED`): a socket another user put where this
  /// home's daemon should be is refused before a word is sent to it.
  package static func send(_ request: ControlRequest, paths: SharePaths) throws(ShareError) -> ControlResponse {
    guard let response = try sendIfRunning(request, paths: paths) else {
      throw .configuration("no share daemon is running for this home (start one with 'share daemon')")
    }
    return response
  }

  /// `send`, or nil when no daemon is running for this home.
  package static func sendIfRunning(_ request: ControlRequest, paths: SharePaths) throws(ShareError) -> ControlResponse? {
    let socket = paths.controlSocket.path
    guard let fd = try UnixSocket.connectIfListening(to: socket) else { return nil }
    defer { close(fd) }
    let server = UnixSocket.peerUID(fd)
    guard server == getuid() else {
      throw .configuration(
        "the control socket \(socket) is served by \(server.map { "user \($0)" } ?? "an unknown user"), not by you "
          + "(user \(getuid())): refusing to talk to it; another user may be impersonating your share daemon")
    }
    guard var data = try? ControlCoding.encoder.encode(request) else {
      throw .configuration("cannot encode the request")
    }
    data.append(0x0A)
    UnixSocket.writeAll(fd, data)
    // A daemon that does not answer (stopped with Ctrl-Z, hung) is given up on (review 38:
    // status, requests and receive waited for ever); a request that waits itself gets its wait.
    let waits: Double = if case .localSendPeers(let seconds?) = request { seconds } else { 0 }
    let patience = ControlClient.answerTimeout + .milliseconds(Int(waits * 1000))
    guard let line = UnixSocket.readLine(fd, limit: ControlResponse.maxBytes, deadline: .now + patience) else {
      throw .configuration(
        "the daemon of this home did not answer within \(Int(patience / .seconds(1))) s (is it stopped? 'kill -CONT' its PID, or restart it)"
      )
    }
    guard let response = try? ControlCoding.decoder.decode(ControlResponse.self, from: line) else {
      throw .configuration("the daemon gave no answer")
    }
    guard response.ok else { throw .configuration(response.error ?? "the daemon refused the request") }
    return response
  }
}
