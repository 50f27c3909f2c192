import Foundation
import Glibc
import Synchronization
import System

/// Runs the `--on-receive` command (and desktop notifications) in a process of its own, started
/// before the daemon confines itself (`Confinement`), so that they run unconfined when the owner
/// asks for it (`--hooks-unconfined`). It is the same `share` executable, told by its environment
/// to serve one end of a socket pair while the daemon holds the other.
///
/// It trusts the daemon no more than it must: it runs only the owner's command, given when it
/// was started; from the daemon it takes only `SHARE_*` variables, and an item path directly in
/// the Inbox. It ends when the daemon closes its end, once the hooks under way have run.
package enum HookRunner {
  /// What the runner runs.
  package struct Configuration: Sendable {
    package var command: String?
    package var notify: Bool
    /// The Inbox: every item path it is given must be directly in it.
    package var inbox: String

    package init(command: String?, notify: Bool, inbox: String) {
      self.command = command
      self.notify = notify
      self.inbox = inbox
    }
  }

  /// One line on the channel, either way.
  enum Message: Codable {
    /// An item was stored: its `SHARE_*` variables.
    case stored([String: String])
    /// An ask waits for the owner.
    case waiting(PendingAsk)
    /// From the runner: a line for the daemon's log.
    case report(String)
  }

  /// In the runner's environment: the descriptor of its end, its configuration.
  static let channelKey = "SHARE_HOOK_RUNNER_FD"
  static let commandKey = "SHARE_HOOK_RUNNER_COMMAND"
  static let notifyKey = "SHARE_HOOK_RUNNER_NOTIFY"
  static let inboxKey = "SHARE_HOOK_RUNNER_INBOX"
  /// In the daemon's environment across its re-execution: the descriptor of its end.
  static let daemonKey = "SHARE_HOOK_CHANNEL_FD"
  /// The runner's end, as the runner sees it.
  static let runnerDescriptor: Int32 = 3

  /// Starts the runner (unconfined: call before confining) and returns the environment variables
  /// that hand the daemon's end of the channel to the daemon's next image.
  static func start(_ configuration: Configuration, environment: [String: String]) throws(ShareError) -> [String: String] {
    let (daemonEnd, runnerEnd): (FileDescriptor, FileDescriptor)
    do {
      (daemonEnd, runnerEnd) = try FileDescriptor.unixSocketPair()
    } catch {
      throw .configuration("cannot start the hook runner: socketpair: \(error)")
    }
    defer { try? runnerEnd.close() }
    var runnerEnvironment = environment
    runnerEnvironment[channelKey] = String(runnerDescriptor)
    runnerEnvironment[commandKey] = configuration.command
    runnerEnvironment[notifyKey] = configuration.notify ? "1" : "0"
    runnerEnvironment[inboxKey] = configuration.inbox
    let started = spawn(
      CurrentProcess.executable, [], environment: runnerEnvironment,
      passing: (runnerEnd.rawValue, runnerDescriptor), blocking: [SIGINT, SIGTERM, SIGHUP])
    guard started != nil else {
      try? daemonEnd.close()
      throw .configuration("cannot start the hook runner (posix_spawn \(CurrentProcess.executable))")
    }
    do {
      try daemonEnd.setCloseOnExec(false)
    } catch {
      throw .configuration("cannot hand the hook channel on: \(error)")
    }
    return [daemonKey: String(daemonEnd.rawValue)]
  }

  /// `share`'s entry point calls this first: in a process started as a hook runner, serves the
  /// channel and returns the exit status; otherwise returns nil at once.
  package static func serveIfAsked(environment: [String: String]) -> Int32? {
    guard environment[channelKey] == String(runnerDescriptor) else { return nil }
    // Ctrl-C in the daemon's terminal reaches this process too; it ends when the daemon does.
    for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { signal(number, SIG_IGN) }
    for key in [channelKey, commandKey, notifyKey, inboxKey] { unsetenv(key) }
    let configuration = Configuration(
      command: environment[commandKey], notify: environment[notifyKey] == "1", inbox: environment[inboxKey] ?? "")
    serve(FileDescriptor(rawValue: runnerDescriptor), configuration)
    return 0
  }

  /// The runner's loop: runs what the daemon sends until it closes the channel.
  static func serve(_ channel: FileDescriptor, _ configuration: Configuration) {
    let writer = Mutex(channel)
    let hooks = ArrivalHooks(command: configuration.command, notify: configuration.notify) { line in
      writer.withLock { try? $0.writeAll(Self.encode(.report(line))) }
    }
    var reader = LineReader(channel)
    while let line = reader.next() {
      switch try? JSONDecoder().decode(Message.self, from: line) {
      case .stored(let variables):
        if let problem = refusal(of: variables, inbox: configuration.inbox) {
          writer.withLock { try? $0.writeAll(Self.encode(.report("hook runner refused an item: \(problem)"))) }
        } else {
          hooks.stored(variables)
        }
      case .waiting(let ask): hooks.waiting(ask)
      case .report, nil: continue
      }
    }
    hooks.drain()
  }

  /// Why the runner does not run a hook with `variables`, or nil: only `SHARE_*` names, and an
  /// item path that is a name directly in the Inbox.
  static func refusal(of variables: [String: String], inbox: String) -> String? {
    if let name = variables.keys.first(where: { !$0.hasPrefix("SHARE_") }) { return "the variable \(name) is not SHARE_*" }
    guard let path = variables["SHARE_ITEM_PATH"] else { return "no SHARE_ITEM_PATH" }
    let name = String(path.dropFirst(inbox.count + 1))
    guard path.hasPrefix(inbox + "/"), !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
      return "SHARE_ITEM_PATH is not an item in the Inbox"
    }
    return nil
  }

  static func encode(_ message: Message) -> [UInt8] {
    Array((try? JSONEncoder().encode(message)) ?? Data()) + [0x0A]
  }
}
