import Foundation
import Glibc

/// Shell scripts run as root in a private mount namespace of their own
/// (`unshare --mount --propagation private`): a small tmpfs or a hostile `/tmp` for one test,
/// invisible to every other process on the machine and gone when the script's processes end.
/// Not a network namespace: the network is the machine's.
enum MountNamespace {
  static let unshare: URL? = ["/usr/bin/unshare", "/bin/unshare"].map { URL(fileURLWithPath: $0) }
    .first { access($0.path, X_OK) == 0 }

  /// Root, and `unshare` (Debian package util-linux): what these tests need.
  static var available: Bool { getuid() == 0 && unshare != nil }

  /// Starts `/bin/sh -c script sh arguments...` in a new private mount namespace.
  static func start(_ script: String, arguments: [String], environment: [String: String]) throws -> ChildProcess {
    guard let unshare else { throw HarnessError("this test needs unshare (Debian package util-linux)") }
    return try ChildProcess(
      executable: unshare, arguments: ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh"] + arguments,
      environment: environment)
  }

  /// Runs a script to the end (bounded).
  static func run(
    _ script: String, arguments: [String], environment: [String: String], timeout: Duration = .seconds(60)
  ) throws -> CommandResult {
    try start(script, arguments: arguments, environment: environment).wait(timeout: timeout)
  }
}

/// `share daemon` for `home`, in a private mount namespace where the home's Documents folder is a
/// tmpfs of `megabytes` MiB (and `files` files, when given): a small disk that fills for real,
/// without touching the machine's.
/// The test sees that file system through `/proc/PID/root`.
final class SmallDiskDaemon {
  let home: ShareHome
  let process: ChildProcess
  let port: UInt16

  init(home: ShareHome, megabytes: Int, files: Int? = nil) throws {
    self.home = home
    try FileManager.default.createDirectory(at: home.documents, withIntermediateDirectories: true)
    let script = #"mount -t tmpfs -o "$1" share-e2e-small-disk "$2" || exit 97; shift 2; exec "$@""#
    process = try MountNamespace.start(
      script,
      arguments: [
        "size=\(megabytes)m" + (files.map { ",nr_inodes=\($0)" } ?? ""), home.documents.path, try ShareBinary.require().path, "--home",
        home.home.path,
        "daemon", "--port", "0", "--host", "127.0.0.1",
      ],
      environment: home.environment())
    var found: UInt16? = nil
    process.waitFor(timeout: .seconds(30)) { stdout, _, exited in
      found = Daemon.listeningPort(in: stdout)
      return found != nil || exited
    }
    guard let found else { throw HarnessError("the daemon did not start on a small disk:\n\(process.wait(timeout: .seconds(5)))") }
    port = found
  }

  deinit {
    if process.isRunning {
      process.signal(SIGTERM)
      _ = process.wait(timeout: .seconds(10))
    }
  }

  var address: String { "127.0.0.1:\(port)" }
  var log: String { process.stderrTextSoFar }

  /// A path in the daemon's view of the file system (its tmpfs included).
  func seen(_ url: URL) -> URL { URL(fileURLWithPath: "/proc/\(process.pid)/root" + url.path) }

  /// Free bytes on the small disk, as an unprivileged writer would get them (`f_bavail`).
  var freeBytes: Int64? {
    var info = statvfs()
    guard statvfs(seen(home.documents).path, &info) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// Files that may still be made on the small disk (`f_favail`).
  var freeFiles: Int64? {
    var info = statvfs()
    guard statvfs(seen(home.documents).path, &info) == 0 else { return nil }
    return Int64(info.f_favail)
  }
}
