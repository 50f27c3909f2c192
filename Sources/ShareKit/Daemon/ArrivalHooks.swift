import Dispatch
import Foundation
import Synchronization
import TextEscaping

/// What the daemon does when an item arrives or an ask waits: run the owner's command with the
/// item's metadata in environment variables (never interpolated into a shell line), and show a
/// desktop notification where `notify-send` exists. Received URLs and text are never opened.
///
/// Hooks run one at a time on a queue of their own, so a slow command never holds up receiving;
/// or, when the owner wants them unconfined, in the `HookRunner` process, which this forwards to.
/// At most `maxWaiting` runs wait: the items that arrive while that many wait get none (a
/// contact's 30,000 small files queued 42 hours of `sleep 5` — review 19), which is logged, and
/// once the runs catch up the owner is told how many items had none (one notification for them
/// all). Shutdown waits for the waiting runs `drainTimeout` at most; then the run under way is
/// ended (each run is a process group of its own: the command and what it started) and the
/// runs still waiting are dropped (review 38: a hook was left running, re-parented to init).
package final class ArrivalHooks: Sendable {
  /// A shell command line written by the owner, run with `/bin/sh -c`.
  package let command: String?
  package let notify: Bool
  private let notifySend: String?
  private let queue = DispatchQueue(label: "share.hooks")
  private let report: @Sendable (String) -> Void
  /// The runner that runs everything instead of this process, if any.
  private let runner: HookRunner.Channel?
  /// Runs queued and not yet finished.
  private let waitingRuns = Atomic<Int>(0)
  /// Items stored while `maxWaiting` runs waited, since the runs last caught up.
  private let skippedItems = Atomic<Int>(0)
  /// The process (group) of the run under way, if any.
  private let running = Mutex<pid_t?>(nil)
  /// Set when shutdown stops waiting: the runs still queued are dropped.
  private let stopping = Atomic<Bool>(false)

  /// The most runs (commands and notifications) that wait at once.
  package static let maxWaiting = 1_000
  /// How long shutdown waits for the runs still waiting.
  package static let drainTimeout: Duration = .seconds(10)

  package init(
    command: String?, notify: Bool, runner: HookRunner.Channel? = nil, report: @escaping @Sendable (String) -> Void
  ) {
    self.command = command
    self.notify = notify
    self.report = report
    self.runner = runner
    runner?.start(report: report)
    notifySend = notify && runner == nil ? ArrivalHooks.find("notify-send") : nil
    if notify && runner == nil && notifySend == nil { report("--notify: notify-send is not installed; no desktop notifications") }
  }

  /// Whether anything runs when an item is stored: an `--on-receive` command, a notification,
  /// or the runner that does either (callers need not build the variables otherwise).
  package var runsOnArrival: Bool { runner != nil || command != nil || notifySend != nil }

  /// The variables an `--on-receive` command gets for a stored item. `senderID` is nil for a
  /// sender whose ID is not proven (a LocalSend sender without a certificate): `SHARE_SENDER_ID`
  /// is then empty and `SHARE_SENDER_VERIFIED` 0, so that a hook comparing IDs never takes a
  /// claim for a contact.
  /// `SHARE_SENDER_CONTACT` is the sender's name as this home's contact (empty for a stranger),
  /// `SHARE_SENDER_POSED_AS` the contact whose name, or one like it, a stranger used.
  package static func environment(
    path: String, name: String, originalName: String, kind: String, size: Int64, type: String?, sha256: String?,
    senderName: String, senderID: String?, contactName: String? = nil, posedAs: String? = nil
  ) -> [String: String] {
    [
      "SHARE_ITEM_PATH": path, "SHARE_ITEM_NAME": name, "SHARE_ITEM_ORIGINAL_NAME": originalName,
      "SHARE_ITEM_KIND": kind, "SHARE_ITEM_SIZE": String(size), "SHARE_ITEM_TYPE": type ?? "",
      "SHARE_ITEM_SHA256": sha256 ?? "", "SHARE_SENDER_NAME": senderName, "SHARE_SENDER_ID": senderID ?? "",
      "SHARE_SENDER_VERIFIED": senderID == nil ? "0" : "1", "SHARE_SENDER_CONTACT": contactName ?? "",
      "SHARE_SENDER_POSED_AS": posedAs ?? "",
    ]
  }

  /// Who sent an item, for a notification: a contact by its name here, a stranger using a
  /// contact's name marked so.
  static func sender(_ variables: [String: String]) -> String {
    let name = Self.shown(variables["SHARE_SENDER_NAME"] ?? "?")
    if let contact = variables["SHARE_SENDER_CONTACT"], !contact.isEmpty { return Self.shown(contact) }
    if let posed = variables["SHARE_SENDER_POSED_AS"], !posed.isEmpty { return "\(name) (NOT your contact \(Self.shown(posed)))" }
    return name
  }

  /// Runs the hook for a stored item, unless `maxWaiting` runs wait already.
  package func stored(_ variables: [String: String]) {
    if let runner { return runner.send(.stored(variables)) }
    guard command != nil || notifySend != nil else { return }
    guard waitingRuns.load(ordering: .relaxed) < Self.maxWaiting else {
      if skippedItems.add(1, ordering: .relaxed).newValue == 1 {
        report("\(Self.maxWaiting) hook runs are waiting: items stored from now on get none until they catch up")
      }
      return
    }
    if let command {
      enqueue { [self, report] in
        let status = self.run("/bin/sh", ["-c", command], extra: variables)
        if status != 0 { report("--on-receive command exited with status \(status) for \(variables["SHARE_ITEM_NAME"] ?? "")") }
      }
    }
    if let notifySend {
      let title = "Received \(Self.shown(variables["SHARE_ITEM_NAME"] ?? "an item"))"
      let body = "from \(Self.sender(variables)) — in your Inbox"
      enqueue { _ = self.run(notifySend, ArrivalHooks.notification(title, body), extra: [:]) }
    }
  }

  /// Queues one run; the last of the waiting runs tells of the items that got none meanwhile.
  private func enqueue(_ run: @escaping @Sendable () -> Void) {
    waitingRuns.add(1, ordering: .relaxed)
    queue.async { [self] in
      if !stopping.load(ordering: .relaxed) { run() }
      guard waitingRuns.subtract(1, ordering: .relaxed).newValue == 0 else { return }
      let skipped = skippedItems.exchange(0, ordering: .relaxed)
      guard skipped > 0 else { return }
      let items = skipped == 1 ? "1 item" : "\(skipped) items"
      report("hook runs caught up: \(items) stored meanwhile got no --on-receive run or notification")
      if let notifySend {
        _ = self.run(notifySend, ArrivalHooks.notification("Received \(items) more", "in your Inbox"), extra: [:])
      }
    }
  }

  /// notify-send's arguments for a notification. Its title begins with peer text, which GLib's
  /// option parser would read as options wherever they stand (review 17: a stranger called
  /// `--urgency=low` made the ask's notification fail, `--app-name=…` rewrote it): `--` first.
  static func notification(_ title: String, _ body: String) -> [String] { ["-a", "share", "--", title, body] }

  /// Peer text as a notification shows it: escaped as everywhere (controls, bidi, invisible
  /// characters), and its markup characters too — notification servers read `<a href>`, `<b>`
  /// and `<img>` in a body (outside review: a peer's name made a clickable link).
  static func shown(_ text: String) -> String { markupEscaped(Escaping.escaped(text)) }

  /// Text already escaped for a terminal with its markup characters as entities.
  private static func markupEscaped(_ text: String) -> String {
    var shown = ""
    for character in text {
      switch character {
      case "&": shown += "&amp;"
      case "<": shown += "&lt;"
      case ">": shown += "&gt;"
      default: shown.append(character)
      }
    }
    return shown
  }

  /// Shows a notification for an ask waiting for the person.
  package func waiting(_ ask: PendingAsk) {
    if let runner { return runner.send(.waiting(ask)) }
    guard let notifySend else { return }
    let who = Self.shown(ask.peerName.unescaped)
    let what = ask.pairingCode == nil ? "wants to send \(ask.itemCount) item(s)" : "asks to pair"
    let run = "Run 'share accept \(ask.id)' or 'share decline \(ask.id)'"
    // The same warning as `share requests` shows (its peer text escaped there already).
    let body = ask.warning.map { Self.markupEscaped($0) + ". " + run } ?? run
    let title = "\(who) \(what)"
    guard waitingRuns.load(ordering: .relaxed) < Self.maxWaiting else { return }
    enqueue { _ = self.run(notifySend, ArrivalHooks.notification(title, body), extra: [:]) }
  }

  /// Waits until every queued hook has run, `timeout` at most (for shutdown: a daemon that
  /// waited for hours of queued runs could not be stopped, and held its home); then drops the
  /// waiting runs and ends the one under way, with SIGTERM, and SIGKILL `graceAfterTerm` later
  /// if it is still running. Returns whether they all ran.
  @discardableResult
  package func drain(timeout: Duration = ArrivalHooks.drainTimeout) -> Bool {
    if let runner { return runner.drain(timeout: timeout + Self.graceAfterTerm + .seconds(5)) }
    let done = DispatchSemaphore(value: 0)
    queue.async { done.signal() }
    guard done.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .timedOut else { return true }
    stopping.store(true, ordering: .relaxed)
    let waiting = waitingRuns.load(ordering: .relaxed)
    guard let group = running.withLock({ $0 }) else {
      report("stopping without the \(waiting) hook run(s) still waiting")
      return false
    }
    kill(-group, SIGTERM)
    var ended = "ended with SIGTERM"
    if done.wait(timeout: .now() + .nanoseconds(Int(Self.graceAfterTerm / .nanoseconds(1)))) == .timedOut {
      kill(-group, SIGKILL)
      ended = "killed (it outlived SIGTERM by \(Self.graceAfterTerm))"
    }
    let dropped = waiting > 1 ? "; \(waiting - 1) run(s) still waiting not run" : ""
    report("stopping: the hook run under way after \(timeout) was \(ended)\(dropped)")
    return false
  }

  /// How long a hook run ended at shutdown has between SIGTERM and SIGKILL.
  package static let graceAfterTerm: Duration = .seconds(2)

  private func run(_ executable: String, _ arguments: [String], extra: [String: String]) -> Int32 {
    defer { running.withLock { $0 = nil } }
    // Its output is the owner's log's, escaped (a hook may print what a peer sent), and a few
    // lines a run at most.
    var lines = 0
    let status = spawnAndWait(
      executable, arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { _, new in new },
      started: { pid in running.withLock { $0 = pid } },
      output: { line in
        lines += 1
        if lines <= Self.outputLines { report("hook: \(Escaping.escaped(line, maximumLength: 200))") }
      })
    if lines > Self.outputLines { report("hook: … \(lines - Self.outputLines) more line(s) of its output not shown") }
    return status
  }

  /// How many lines of a run's output the log gets.
  static let outputLines = 20

  private static func find(_ program: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
      let candidate = "\(dir)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}
