import Foundation
import ShareKit

/// How a send ended at one receiver, as far as the exit code cares.
enum ReceiverOutcome: Sendable, Equatable {
  /// Every item stored.
  case allStored
  /// Some items stored, others (or some entries of a stored folder) refused or failed.
  case someStored
  /// The receiver took nothing: it refused every item, its owner declined or did not answer,
  /// or it refuses this sender outright (receive mode off or contacts only, too many asks).
  case noneStored
  /// The exchange did not complete: no connection, a certificate or protocol problem, the
  /// receiver went away.
  case failed
  /// The device another receiver of the send is: what that one stored is all it gets.
  case sameAsAnother

  /// Failure codes a receiver sends when it decides not to take anything from this sender.
  static let refusalCodes: Set<String> = ["refused", "declined", "busy"]

  init(_ result: Result<SendReport, ShareError>) {
    switch result {
    case .failure(.peerFailure(let code, _)) where Self.refusalCodes.contains(code): self = .noneStored
    case .failure(.sameReceiver): self = .sameAsAnother
    case .failure: self = .failed
    case .success(let report):
      // A folder stored without some of its entries is partly stored, like loose files. Items
      // that all failed here (a file that could not be read as offered) are an error of this
      // side, not a receiver taking nothing (review 18: exit 4).
      let counts = report.counts
      if counts.stored == 0, !report.items.isEmpty, report.items.allSatisfy(\.failedHere) {
        self = .failed
      } else {
        self = report.allStored ? .allStored : counts.stored == 0 ? .noneStored : .someStored
      }
    }
  }
}

extension ExitCode {
  /// The exit code of a send from its receivers' outcomes: interrupted, else any failure, else
  /// everything stored everywhere, else nothing stored anywhere, else partial.
  /// Entries left out of a folder here (`skippedEntries`: a symbolic link, a pipe, an unreadable
  /// file) make a send whose items were all stored a partial one: not everything asked went.
  static func of(send outcomes: [ReceiverOutcome], skippedEntries: Int = 0, interrupted: Bool) -> ExitCode {
    if interrupted { return .interrupted }
    let outcomes = outcomes.filter { $0 != .sameAsAnother }
    if outcomes.contains(.failed) { return .failure }
    if outcomes.allSatisfy({ $0 == .allStored }) { return skippedEntries > 0 ? .partial : .success }
    if outcomes.allSatisfy({ $0 == .noneStored }) { return .refused }
    return .partial
  }
}

/// The sentences at the end of a send, pure so they are tested without a network.
enum SendSummary {
  /// `1 of 1 stored in bob's Inbox: 1.0 GiB in 3.4 s (301 MiB/s)`: the bytes sent and the time
  /// from the first byte to the receipt when bytes went, the average rate when that took a
  /// second or more (under a second it measures the receiver's syncing, not the network).
  static func stored(_ stored: Int, of count: Int, peer: String, sent: Int64, seconds: Double?) -> String {
    let line = "\(stored) of \(count) stored in \(Self.inbox(of: peer))"
    guard sent > 0, let seconds, seconds > 0 else { return line }
    let rate = seconds >= 1 ? " (\(formatBytes(Int64(Double(sent) / seconds)))/s)" : ""
    return line + ": \(formatBytes(sent)) in \(duration(seconds))" + rate
  }

  /// A stored folder's entries that are not in it, one line each with the receiver's reason
  /// (`not stored: src/run.sh: bob does not accept shell scripts`), and how many more there
  /// were when the receiver named only the first few.
  static func refusedEntries(_ item: ItemOutcome) -> [String] {
    var lines = item.refusedEntries.map { "not stored: \($0.path): \($0.reason)" }
    let more = (item.entriesRefused ?? 0) - item.refusedEntries.count
    if more > 0 {
      lines.append(lines.isEmpty ? "\(more) of its entries not stored (the receiver did not say which)" : "… and \(more) more not stored")
    }
    return lines
  }

  /// What Ctrl-C left at a receiver, with the command that resumes when the receiver keeps the
  /// bytes of the item that was going (`payload`, of which `sentOfIt` bytes went this time).
  static func interrupted(peer: String, payload: SendingPayload?, sentOfIt: Int64, commandLine: [String]) -> String {
    guard let payload, payload.resumable, payload.resumeFrom + sentOfIt > 0 else {
      return "cancelled; nothing partial is kept in \(Self.inbox(of: peer))"
    }
    let kept = formatBytes(payload.resumeFrom + sentOfIt)
    return "cancelled; \(peer) keeps the \(kept) of \(payload.name) it received (not in its Inbox); "
      + "to resume, run:\n  " + shellCommand(commandLine)
  }

  /// A send that failed after connecting (the connection dropped, the receiver stopped): which
  /// receiver (`named`: for a transport error the line does not name it already; an error that
  /// names it is left as it is), and, when it keeps part of a large item for resuming, how to
  /// resume.
  static func failed(
    _ error: String, peer: String?, named: Bool, payload: SendingPayload?, sentOfIt: Int64, commandLine: [String]
  ) -> String {
    guard let peer else { return error }
    let head = named && !error.contains(peer) ? "\(peer): \(error)" : error
    // Only for an item still in flight: one sent whole was placed or refused by the receiver.
    guard let payload, payload.resumable, payload.resumeFrom + sentOfIt > 0,
      payload.size.map({ payload.resumeFrom + sentOfIt < $0 }) ?? true
    else { return head }
    let kept = formatBytes(payload.resumeFrom + sentOfIt)
    return "\(head) \(peer) keeps up to \(kept) of \(payload.name) for resuming (not in its Inbox); "
      + "to resume, run:\n  " + shellCommand(commandLine)
  }

  /// `12 ms`, `3.4 s`, `2 min 5 s`, `1 h 2 min`.
  static func duration(_ seconds: Double) -> String {
    if seconds < 1 { return "\(max(1, Int((seconds * 1000).rounded()))) ms" }
    if seconds < 60 { return "\((seconds * 10).rounded() / 10) s" }
    let whole = Int(seconds.rounded())
    if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
    return "\(whole / 3600) h \((whole / 60) % 60) min"
  }

  /// `share` and its arguments as a line to paste into a shell (`ShellWords`: read back as they
  /// are, shown as printable text).
  static func shellCommand(_ arguments: [String]) -> String {
    ShellWords.line(["share"] + arguments)
  }

  /// "bob's Inbox"; "the Inbox of lab-b (calls itself lab)" for a label that ends in a
  /// parenthesis (review 36: "lab-b (calls itself lab)'s Inbox").
  static func inbox(of peer: String) -> String {
    peer.hasSuffix(")") ? "the Inbox of \(peer)" : "\(peer)'s Inbox"
  }
}
