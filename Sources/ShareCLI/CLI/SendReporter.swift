import Foundation
import ShareKit
import Synchronization

/// Reports a send to one or more receivers as it goes: progress bars and a summary for people,
/// or one JSON object per event. Thread-safe: each receiver's thread reports its own events.
final class SendReporter: Sendable {
  private let terminal: Terminal
  private let json: Bool
  private let quiet: Bool
  private let endpoints: [Endpoint]
  private let progress: ProgressDisplay?
  private let lastProgress: Mutex<[ContinuousClock.Instant]>
  private let output = Mutex(())

  init(terminal: Terminal, json: Bool, quiet: Bool, endpoints: [Endpoint]) {
    self.terminal = terminal
    self.json = json
    self.quiet = quiet
    self.endpoints = endpoints
    progress = (!json && !quiet && terminal.showsProgress)
      ? ProgressDisplay(terminal: terminal, labels: endpoints.map(\.description)) : nil
    lastProgress = Mutex(Array(repeating: ContinuousClock.now - .seconds(1), count: endpoints.count))
  }

  /// One `--json` line. Keys are snake_case; fields are only ever added.
  struct Event: Encodable {
    var event: String
    var to: String
    var peerName: String? = nil
    var peerId: String? = nil
    var item: String? = nil
    var status: String? = nil
    var storedAs: String? = nil
    var reason: String? = nil
    var type: String? = nil
    var size: Int64? = nil
    var sha256: String? = nil
    var sent: Int64? = nil
    var total: Int64? = nil
    /// For an accepted item the receiver already holds part of: where sending resumes.
    var resumeFrom: Int64? = nil
    var stored: Int? = nil
    var refused: Int? = nil
    var failed: Int? = nil
    var message: String? = nil
    /// For `waiting`: how long this side still waits for the receiver's owner.
    var secondsLeft: Int? = nil
  }

  func warn(_ message: String) {
    guard !quiet else { return }
    if json {
      emit(Event(event: "warning", to: "", message: message))
    } else {
      line(terminal.paint("Warning: ", .yellow) + message)
    }
  }

  func event(_ event: SendEvent, recipient: Int) {
    let to = endpoints[recipient].description
    switch event {
    case .connected(let name, let fingerprint, let address):
      if json {
        emit(Event(event: "connected", to: to, peerName: name, peerId: fingerprint.hex))
      } else if !quiet {
        line("Connected to \(escape(name)) at \(address)\n  receiver ID: \(fingerprint.grouped)")
      }
    case .waiting(let message, let timeLeft):
      let seconds = Int((timeLeft / .seconds(1)).rounded())
      if json {
        emit(Event(event: "waiting", to: to, message: message, secondsLeft: seconds))
      } else if !quiet {
        // A LocalSend device's owner answers on the device itself, not with share's commands.
        let how = endpoints[recipient].localSend == nil ? "; they can run 'share requests' and 'share accept'" : ""
        line("\(escape(to)): \(escape(message))\(how) (giving up in \(seconds) s; Ctrl-C to stop now)")
      }
    case .answered(let answers):
      for answer in answers {
        let name = answer.name
        if json {
          emit(Event(event: "answered", to: to, item: name, status: answer.accepted ? "accepted" : "rejected",
                     reason: answer.reason, type: answer.type, resumeFrom: answer.resumeFrom))
        } else if !quiet, answer.accepted, let offset = answer.resumeFrom {
          line("\(escape(to)) already holds \(formatBytes(offset)) of \(escape(name)): resuming from there")
        } else if !quiet && !answer.accepted {
          line(terminal.paint("Warning: ", .yellow) + "\(escape(to)) refuses \(escape(name)): \(escape(answer.reason ?? "refused"))")
        }
      }
    case .progress(let sent, let total):
      progress?.update(recipient, sent: sent, total: total)
      if json {
        let now = ContinuousClock.now
        let due = lastProgress.withLock { last -> Bool in
          guard now - last[recipient] >= .milliseconds(200) || sent == total else { return false }
          last[recipient] = now
          return true
        }
        if due { emit(Event(event: "progress", to: to, sent: sent, total: total)) }
      }
    }
  }

  /// Reports how one receiver's send ended: each item's fate, then a `done` event.
  func finished(recipient: Int, _ result: Result<SendReport, ShareError>) {
    progress?.finish(recipient)
    let to = endpoints[recipient].description
    switch result {
    case .failure(let error):
      if json { emit(Event(event: "failed", to: to, message: error.description)) }
    case .success(let report):
      guard json else { return }
      for item in report.items {
        let event = item.status == .stored ? "stored" : (item.status == .rejected ? "refused" : "failed")
        emit(Event(
          event: event, to: to, item: item.name, status: item.status.rawValue, storedAs: item.storedAs,
          reason: item.reason, type: item.type, size: item.size, sha256: item.sha256))
      }
      let counts = report.counts
      emit(Event(event: "done", to: to, peerName: report.peerName, peerId: report.peerFingerprint.hex,
                 stored: counts.stored, refused: counts.refused, failed: counts.failed))
    }
  }

  /// The summary for people, per receiver and per item, and the exit code for all of them.
  func summarize(_ results: [Result<SendReport, ShareError>], interrupted: Bool) -> ExitCode {
    progress?.clear()
    var anyFailure = false
    var storedAnywhere = 0
    var everything = true
    for (index, result) in results.enumerated() {
      let to = endpoints[index].description
      switch result {
      case .failure(let error):
        anyFailure = true
        everything = false
        let message = interrupted ? "cancelled; nothing partial is kept in the receiver's Inbox" : error.description
        terminal.error(results.count > 1 ? "\(escape(to)): \(message)" : message, detail: error.detail)
      case .success(let report):
        let counts = report.counts
        storedAnywhere += counts.stored
        if counts.stored < report.items.count { everything = false }
        guard !json && !quiet else { continue }
        if results.count > 1 { terminal.out("\(escape(report.peerName)) (\(escape(to))):") }
        let indent = results.count > 1 ? "  " : ""
        for item in report.items {
          let name = item.name
          let reason = item.reason
          switch item.status {
          case .stored:
            let renamed = item.storedAs.map { $0 == name ? "" : " as \(escape($0))" } ?? ""
            let note = reason.map { " (\(escape($0)))" } ?? ""
            terminal.out("\(indent)stored   \(escape(name))\(renamed)\(note)")
          case .rejected:
            terminal.out("\(indent)refused  \(escape(name)): \(escape(reason ?? "refused"))")
          case .failed:
            terminal.out("\(indent)failed   \(escape(name)): \(escape(reason ?? "failed"))")
          }
        }
        terminal.err("\(counts.stored) of \(report.items.count) stored in \(escape(report.peerName))'s Inbox")
      }
    }
    if interrupted { return .interrupted }
    if anyFailure { return .failure }
    if everything { return .success }
    return storedAnywhere == 0 ? .refused : .partial
  }

  private func line(_ text: String) {
    if let progress {
      progress.print(text)
    } else {
      output.withLock { _ in terminal.err(text) }
    }
  }

  private func emit(_ event: Event) {
    let text = JSONOutput.line(event)
    output.withLock { _ in terminal.out(text) }
  }
}
