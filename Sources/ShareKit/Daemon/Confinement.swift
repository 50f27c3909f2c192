import Foundation
import Glibc
import InboxStore
import System

/// The daemon confining itself with Landlock: once confined it can change files only in its own
/// folders — the configuration (identity, settings, contacts), the Inbox, its staging and
/// metadata, the runtime folder and the control socket's folder — and write to /dev/null.
/// Reading is not confined (the daemon reads the libmagic database, shared-mime-info, its
/// declarations, /proc), nor is the network. A flaw that let a sender run code in the daemon
/// could still not plant a file in `~/.bashrc` or `~/.ssh`.
///
/// Landlock confines the thread that asks and what it starts afterwards, and a running daemon
/// has several threads; so the daemon confines its main thread and replaces its process image
/// with the same command line (`execve` of `/proc/self/exe`, same process ID, same descriptors),
/// which then runs confined from its first instruction. Everything it starts — `--on-receive`
/// hooks, `notify-send` — inherits the confinement, unless the owner asks for unconfined hooks:
/// then a `HookRunner` process is started before confining, and runs them.
package enum Confinement {
  /// What `enter` achieved.
  package enum Status: Sendable {
    /// Confined with Landlock ABI `abi`: only `writable` (folders, and /dev/null) can change.
    /// `hooks` is the channel to the unconfined hook runner, if one was asked for.
    case confined(abi: Int, writable: [String], hooks: HookRunner.Channel?)
    /// Not confined, and why (the kernel has no Landlock): a warning, not an error.
    case unavailable(String)
  }

  /// Set in the environment of the confined process image: the Landlock ABI it is confined with.
  static let confinedKey = "SHARE_LANDLOCK_ABI"

  /// For `share daemon`, before it loads anything: confines the process and carries on as the
  /// same command line in a fresh image; returns in that image. Where the kernel has no Landlock,
  /// returns at once, unconfined, saying why. A control socket folder another user could have
  /// made is an error here as it is at start (`ControlSocketFolder`).
  ///
  /// With `unconfinedHooks`, the runner for the `--on-receive` command is started first.
  package static func enter(paths: SharePaths, unconfinedHooks: HookRunner.Configuration?) throws(ShareError) -> Status {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment[confinedKey], let abi = Int(text) {
      unsetenv(confinedKey)
      // The image came from /proc/self/exe: keep the name the daemon was started under
      // (`share`), so that ps, pgrep and killall find it.
      try? CurrentProcess.setName(URL(fileURLWithPath: CurrentProcess.arguments[0]).lastPathComponent)
      return .confined(abi: abi, writable: try writableFolders(paths), hooks: HookRunner.Channel.inherited())
    }
    let abi: Int
    switch Landlock.abiVersion() {
    case .success(let version): abi = version
    case .failure(let error): return .unavailable(unavailability(error))
    }
    var replacement = environment
    replacement[confinedKey] = String(abi)
    if let unconfinedHooks {
      let runner = try HookRunner.start(unconfinedHooks, environment: environment)
      replacement.merge(runner) { _, new in new }
    }
    let folders = try writableFolders(paths)
    do {
      let ruleset = try Landlock.Ruleset(handling: .modifications(abi: abi))
      for folder in folders { try ruleset.allow(.modifications(abi: abi), beneath: folder) }
      try ruleset.allow([.writeFile, .truncate], beneath: "/dev/null")
      try ruleset.restrictSelf()
    } catch {
      throw .configuration("cannot confine the daemon with Landlock (ABI \(abi)): \(error)")
    }
    do {
      try CurrentProcess.replace(with: CurrentProcess.executable, arguments: CurrentProcess.arguments, environment: replacement)
    } catch {
      throw .configuration("cannot restart the daemon confined (execve \(CurrentProcess.executable)): \(error)")
    }
  }

  /// The folders the daemon may change, each created (owner-only) if missing: a rule needs a
  /// folder that exists.
  static func writableFolders(_ paths: SharePaths) throws(ShareError) -> [String] {
    let store: InboxStore
    do {
      store = try InboxStore(documents: paths.documents)
      for folder in [paths.config, paths.runtime] {
        try FileSystem.makeDirectories(folder.path, permissions: .ownerReadWriteExecute)
      }
    } catch let error as InboxError {
      throw .inbox(error)
    } catch {
      throw .configuration("cannot create the daemon's folders: \(error)")
    }
    try ControlSocketFolder.prepare(paths)
    // Where each really is: an Inbox that is a link out of the home (to another disk) needs a
    // rule of its own (review 49: under --home it was taken for a folder inside the home, and
    // every item failed with "permission denied").
    let folders = [
      paths.config, store.inbox, store.staging.deletingLastPathComponent(), paths.runtime,
      paths.controlSocket.deletingLastPathComponent(),
    ].map { (try? FileSystem.resolvedPath($0.path)) ?? $0.path }
    // A folder inside another needs no rule of its own.
    var kept: [String] = []
    for folder in folders where !kept.contains(where: { folder == $0 || folder.hasPrefix($0 + "/") }) {
      kept.removeAll { $0.hasPrefix(folder + "/") }
      kept.append(folder)
    }
    return kept
  }

  /// Why there is no Landlock, in words.
  static func unavailability(_ error: Errno) -> String {
    switch error {
    case .functionNotImplemented: return "this kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)"
    case .operationNotSupported: return "Landlock is turned off in this kernel (add landlock to its lsm= boot parameter)"
    default: return "Landlock is not available here: \(error)"
    }
  }
}
