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
  /// The command's arguments, for the line that resumes an interrupted send.
  private let commandLine: [String]
  /// Entries of the folders named that were left out here (a warning each).
  private let skippedEntries: Int
  /// Who a receiver is to this home, from the ID it proved and the name it gave.
  private let identify: @Sendable (Fingerprint, PeerText) -> (contactName: PeerText?, posedAs: PeerText?)
  private let progress: ProgressDisplay?
  private let tallies: Mutex<[Tally]>
  private let output = Mutex(())

  /// What the summary needs of one receiver's send, whether or not bars are drawn.
  private struct Tally {
    /// The receiver as this home knows it (`SenderLabel.who`, escaped), once connected.
    var peerName: String?
    var sent: Int64 = 0
    var streamingSince: ContinuousClock.Instant?
    var finishedAt: ContinuousClock.Instant?
    /// The payload whose bytes are going, and `sent` when it began.
    var current: SendingPayload?
    var sentBeforeCurrent: Int64 = 0
    var lastJSONProgress = ContinuousClock.now - .seconds(1)

    var seconds: Double? {
      guard let streamingSince else { return nil }
      return ((finishedAt ?? .now) - streamingSince) / .seconds(1)
    }
  }

  init(
    terminal: Terminal, json: Bool, quiet: Bool, endpoints: [Endpoint], commandLine: [String] = [], skippedEntries: Int = 0,
    identify: @escaping @Sendable (Fingerprint, PeerText) -> (contactName: PeerText?, posedAs: PeerText?) = { _, _ in (nil, nil) }
  ) {
    self.skippedEntries = skippedEntries
    self.identify = identify
    self.terminal = terminal
    self.json = json
    self.quiet = quiet
    self.endpoints = endpoints
    self.commandLine = commandLine
    progress =
      (!json && !quiet && terminal.showsProgress)
      ? ProgressDisplay(terminal: terminal, labels: endpoints.map(\.description)) : nil
    tallies = Mutex(Array(repeating: Tally(), count: endpoints.count))
  }

  /// One `--json` line. Keys are snake_case; fields are only ever added. What a peer (or a
  /// file name) wrote is `PeerText`: JSON carries it whole, JSON-escaped.
  struct Event: Encodable {
    var event: String
    /// The receiver as it was found (its advertised name, or HOST:PORT); absent for what
    /// concerns the whole send (a warning).
    var to: PeerText? = nil
    /// The `--to` argument it was found for, exactly as given (review 18: `--to srv` gave
    /// `"to":"server-01"`, and a script could not match events to its arguments).
    var target: String? = nil
    var peerName: PeerText? = nil
    var peerId: String? = nil
    /// For `connected` and `done`: the receiver's name here when it is a contact; or, for a
    /// stranger whose name looks like a contact's, that contact's (`posed_as`).
    var contactName: PeerText? = nil
    var posedAs: PeerText? = nil
    var item: PeerText? = nil
    var status: String? = nil
    var storedAs: PeerText? = nil
    var reason: PeerText? = nil
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
    /// For a stored folder: the entries the receiver did not store, each with why (the first
    /// 100); for `done`, how many entries of stored folders were not stored in all.
    var refusedEntries: [RefusedEntry]? = nil
    var entriesRefused: Int? = nil
    /// For `done`: how many entries of the folders named were left out here (not sent).
    var entriesSkipped: Int? = nil
    /// For `done`: how long the bytes took to go.
    var seconds: Double? = nil
    var message: PeerText? = nil
    /// For `waiting`: how long this side still waits for the receiver's owner.
    var secondsLeft: Int? = nil
    /// For `busy`: the receiver only closed the connection (it said nothing).
    var closed: Bool? = nil
    /// For `busy`: seconds until the next try.
    var retryIn: Int? = nil
  }

  /// One entry of a folder that was not stored, in `--json`.
  struct RefusedEntry: Encodable {
    var path: PeerText
    var reason: PeerText
  }

  func warn(_ message: String) {
    guard !quiet else { return }
    if json {
      emit(Event(event: "warning", message: PeerText(message)))
    } else {
      line(terminal.paint("Warning: ", .yellow) + message)
    }
  }

  /// What went wrong with one receiver, naming it when it is the one that refused (review 16:
  /// "the peer refused: …" did not say which, with several receivers or one reached by address).
  static func describe(_ error: ShareError, by peer: String) -> String {
    guard case .peerFailure(_, let message) = error else { return error.description }
    return "\(peer) refused: \(message)"
  }

  /// How a receiver turned a connection away, as the rest of a sentence after its name.
  static func turnedAway(_ said: PeerText?) -> String {
    said.map { "is busy (\($0.isEmpty ? "it gave no reason" : $0.description))" }
      ?? "closed the connection before it was set up (as a receiver does when too many are starting)"
  }

  func event(_ event: SendEvent, recipient: Int) {
    let to = endpoints[recipient].name
    switch event {
    case .connected(let name, let fingerprint, let address):
      // Review 18: a stranger reached by HOST:PORT that calls itself like a contact was
      // "Connected to bob-desk … stored in bob-desk's Inbox".
      let (contactName, posedAs) = identify(fingerprint, name)
      let shown = Self.label(name, contactName: contactName, posedAs: posedAs, endpoint: endpoints[recipient])
      tallies.withLock { $0[recipient].peerName = shown }
      progress?.update(recipient, now: true) { $0.peerName = shown }
      if json {
        emit(
          Event(
            event: "connected", peerName: name, peerId: fingerprint.hex,
            contactName: contactName, posedAs: posedAs), for: recipient)
      } else if !quiet {
        line("Connected to \(shown) at \(address)\n  receiver ID: \(fingerprint.grouped)")
      }
    case .busy(let said, let retryIn):
      let seconds = max(1, Int((retryIn / .seconds(1)).rounded()))
      if json {
        emit(
          Event(
            event: "busy", reason: said, closed: said == nil ? true : nil, retryIn: seconds), for: recipient)
      } else if !quiet {
        line("\(to.description) \(Self.turnedAway(said)); trying again in \(seconds) s (Ctrl-C to stop)")
      }
    case .waiting(let message, let timeLeft):
      let seconds = Int((timeLeft / .seconds(1)).rounded())
      progress?.update(recipient, now: true) { $0.phase = .waiting }
      if json {
        emit(Event(event: "waiting", message: message, secondsLeft: seconds), for: recipient)
      } else if !quiet {
        // A LocalSend device's owner answers on the device itself, not with share's commands.
        let how = endpoints[recipient].localSend == nil ? "; they can run 'share requests' and 'share accept'" : ""
        line("\(shown(recipient)): \(message)\(how) (giving up in \(seconds) s; Ctrl-C to stop now)")
      }
    case .answered(let answers):
      answered(answers, recipient: recipient)
    case .sending(let payload):
      sending(payload, recipient: recipient)
    case .progress(let sent, let total):
      progressed(sent: sent, total: total, recipient: recipient)
    }
  }

  /// The receiver as the "Connected to" line named it, once connected (review 23: the next
  /// lines named it by HOST:PORT); before that, as it was found.
  private func shown(_ recipient: Int) -> String {
    tallies.withLock { $0[recipient].peerName } ?? endpoints[recipient].name.description
  }

  private func answered(_ answers: [ItemVerdict], recipient: Int) {
    let held = answers.filter(\.accepted).reduce(Int64(0)) { $0 + ($1.resumeFrom ?? 0) }
    progress?.update(recipient, now: true) {
      $0.phase = .sending
      $0.held = held
    }
    // Nothing accepted: nothing is sent, and the summary saying what was refused follows at
    // once; a warning for each item before it said it twice (review 30 L7).
    let warns = answers.contains(where: \.accepted)
    for answer in answers {
      let name = answer.name
      if json {
        emit(
          Event(
            event: "answered", item: name, status: answer.accepted ? "accepted" : "rejected",
            reason: answer.reason, type: answer.type, resumeFrom: answer.resumeFrom), for: recipient)
      } else if !quiet, answer.accepted, let offset = answer.resumeFrom {
        line("\(shown(recipient)) already holds \(formatBytes(offset)) of \(name): resuming from there")
      } else if !quiet && !answer.accepted && warns {
        line(terminal.paint("Warning: ", .yellow) + "\(shown(recipient)) refuses \(name): \(answer.reason ?? "refused")")
      }
    }
  }

  private func sending(_ payload: SendingPayload, recipient: Int) {
    let now = ContinuousClock.now
    tallies.withLock { tallies in
      tallies[recipient].current = payload
      tallies[recipient].sentBeforeCurrent = tallies[recipient].sent
      if tallies[recipient].streamingSince == nil { tallies[recipient].streamingSince = now }
    }
    progress?.update(recipient, now: true) { line in
      line.item = payload.name.description
      if payload.size == nil { line.total = nil }
    }
    if json {
      emit(
        Event(
          event: "sending", item: payload.name, size: payload.size,
          resumeFrom: payload.resumeFrom > 0 ? payload.resumeFrom : nil), for: recipient)
    }
  }

  private func progressed(sent: Int64, total: Int64, recipient: Int) {
    let now = ContinuousClock.now
    let due = tallies.withLock { tallies -> Bool in
      tallies[recipient].sent = sent
      guard now - tallies[recipient].lastJSONProgress >= .milliseconds(200) || sent == total else { return false }
      tallies[recipient].lastJSONProgress = now
      return true
    }
    progress?.update(recipient) { line in
      if line.streamingSince == nil { (line.streamingSince, line.sentAtStart) = (now, line.sent) }
      line.sent = sent
      if line.total != nil { line.total = total }
    }
    if json, due {
      emit(Event(event: "progress", sent: sent, total: total), for: recipient)
    }
  }

  /// Reports how one receiver's send ended: each item's fate, then a `done` event.
  func finished(recipient: Int, _ result: Result<SendReport, ShareError>) {
    let tally = tallies.withLock { tallies in
      tallies[recipient].finishedAt = .now
      return tallies[recipient]
    }
    progress?.update(recipient, now: true) { $0.phase = .done }
    switch result {
    case .failure(.sameReceiver(let other)):
      if json {
        emit(
          Event(
            event: "warning", message: PeerText(ShareError.sameReceiver(as: other).description)
          ), for: recipient)
      }
    case .failure(let error):
      // No `item`: the send to this receiver ended before its items' fates were known.
      if json {
        let said = PeerText(error.description)
        emit(Event(event: "failed", reason: said, message: said), for: recipient)
      }
    case .success(let report):
      guard json else { return }
      for item in report.items {
        let event = item.status == .stored ? "stored" : (item.status == .rejected ? "refused" : "failed")
        let refusedEntries = item.refusedEntries.map { RefusedEntry(path: $0.path, reason: $0.reason) }
        emit(
          Event(
            event: event, item: item.name, status: item.status.rawValue,
            storedAs: item.storedAs,
            reason: item.reason, type: item.type, size: item.size, sha256: item.sha256,
            refusedEntries: refusedEntries.isEmpty ? nil : refusedEntries), for: recipient)
      }
      let counts = report.counts
      let entriesRefused = report.items.filter { $0.status == .stored }.reduce(0) { $0 + ($1.entriesRefused ?? 0) }
      let (contactName, posedAs) = identify(report.peerFingerprint, report.peerName)
      emit(
        Event(
          event: "done", peerName: report.peerName, peerId: report.peerFingerprint.hex,
          contactName: contactName,
          posedAs: posedAs,
          sent: tally.sent, stored: counts.stored, refused: counts.refused, failed: counts.failed,
          entriesRefused: entriesRefused, entriesSkipped: skippedEntries, seconds: tally.seconds ?? 0), for: recipient)
    }
  }

  /// The summary for people, per receiver and per item, and the exit code for all of them.
  func summarize(_ results: [Result<SendReport, ShareError>], interrupted: Bool) -> ExitCode {
    progress?.clear()
    let tallies = self.tallies.withLock { $0 }
    var failures: [String] = []
    for (index, result) in results.enumerated() {
      let to = endpoints[index].name
      switch result {
      case .failure(.sameReceiver(let other)):
        if !json { terminal.warn("\(to.description) is \(ShareError.sameReceiver(as: other).description)") }
      case .failure(let error):
        let tally = tallies[index]
        let sentOfIt = tally.sent - tally.sentBeforeCurrent
        let message =
          interrupted
          ? SendSummary.interrupted(
            peer: tally.peerName ?? to.description, payload: tally.current, sentOfIt: sentOfIt,
            commandLine: commandLine)
          : SendSummary.failed(
            Self.describe(error, by: tally.peerName ?? to.description), peer: tally.peerName,
            named: results.count == 1 && error.isTransport,
            payload: error.isTransport ? tally.current : nil, sentOfIt: sentOfIt, commandLine: commandLine)
        let named = results.count == 1 || message.hasPrefix(to.description)
        let line = named ? message : "\(to.description): \(message)"
        failures.append(line)
        terminal.error(line, detail: error.detail)
      case .success(let report):
        guard !json else { continue }
        guard !quiet else {
          // --quiet still says what was not stored (exit 3 or 4 alone would not say which).
          let prefix = results.count > 1 ? "\(to.description): " : ""
          for item in report.items {
            guard item.status == .stored else {
              let verb = item.status == .rejected ? "refused" : "failed"
              terminal.err("\(prefix)\(verb) \(item.name): \(item.reason.map { "\($0)" } ?? verb)")
              continue
            }
            // A folder stored in part (review 20: --quiet said nothing of its refused entries).
            for line in SendSummary.refusedEntries(item) { terminal.err("\(prefix)\(item.name): \(line)") }
          }
          continue
        }
        describe(report, tally: tallies[index], to: to, several: results.count > 1)
      }
    }
    let code = ExitCode.of(send: results.map(ReceiverOutcome.init), skippedEntries: skippedEntries, interrupted: interrupted)
    if !json, skippedEntries > 0, code != .failure, code != .interrupted {
      let entries = skippedEntries == 1 ? "1 entry" : "\(skippedEntries) entries"
      terminal.err("\(entries) of the folders named left out here, not sent\(quiet ? "" : " (see the warnings)")")
    }
    // The --json stream ends with the error that ended the command, as every event stream does;
    // so does one where no receiver got as far as a Receipt (review 38: a receiver refusing in
    // its mode ended the stream with neither `done` nor `error`).
    let noReceipt = !results.isEmpty && results.allSatisfy { if case .failure = $0 { true } else { false } }
    if json && (code == .failure || code == .interrupted || (noReceipt && !failures.isEmpty)) {
      let message = failures.isEmpty ? code.meaning : failures.joined(separator: "; ")
      terminal.out(JSONOutput.line(ErrorEvent(message: message, exitCode: code.rawValue)))
    }
    return code
  }

  /// One receiver's items, then the line that sums them up.
  private func describe(_ report: SendReport, tally: Tally, to: PeerText, several: Bool) {
    let shown = tally.peerName ?? report.peerName.description
    if several { terminal.out(shown == to.description ? "\(shown):" : "\(shown) (\(to.description)):") }
    let indent = several ? "  " : ""
    for item in report.items {
      let name = item.name
      let reason = item.reason
      switch item.status {
      case .stored:
        let renamed = item.storedAs.map { $0 == name ? "" : " as \($0)" } ?? ""
        let note = reason.map { " (\($0))" } ?? ""
        terminal.out("\(indent)stored   \(name)\(renamed)\(note)")
        for line in SendSummary.refusedEntries(item) { terminal.out("\(indent)         \(line)") }
      case .rejected:
        terminal.out("\(indent)refused  \(name): \(reason ?? "refused")")
      case .failed:
        terminal.out("\(indent)failed   \(name): \(reason ?? "failed")")
      }
    }
    terminal.err(
      SendSummary.stored(
        report.counts.stored, of: report.items.count, peer: shown, sent: tally.sent, seconds: tally.seconds))
  }

  private func line(_ text: String) {
    if let progress {
      progress.print(text)
    } else {
      output.withLock { _ in terminal.err(text) }
    }
  }

  /// Emits `event` about receiver `recipient`: as it was found, and the `--to` it was found for.
  private func emit(_ event: Event, for recipient: Int) {
    var event = event
    event.to = endpoints[recipient].name
    event.target = endpoints[recipient].target
    emit(event)
  }

  private func emit(_ event: Event) {
    let text = JSONOutput.line(event)
    output.withLock { _ in terminal.out(text) }
  }
}
