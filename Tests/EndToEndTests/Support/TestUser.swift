import Foundation
import Glibc

/// An unprivileged user that end-to-end tests run `share` as. The tests themselves run as root,
/// and root passes every permission check of the file system, which once hid a bug that made
/// every folder transfer fail for everyone else.
///
/// The user (`share-e2e`, a system account with no home and no login shell) is created with
/// `useradd` the first time it is needed; `share` runs as it through `setpriv`, which execs the
/// program under the user's IDs (so the child's PID is share's own, and signals reach it).
struct TestUser: Sendable {
  static let name = "share-e2e"
  let uid: uid_t
  let gid: gid_t

  /// The user, created if missing; nil when this process is not root (it can then neither
  /// create a user nor switch to one), with the reason.
  static let shared: Result<TestUser, HarnessError> = {
    guard getuid() == 0 else { return .failure(HarnessError("not running as root: cannot run share as another user")) }
    if let user = lookUp() { return .success(user) }
    let result = try? runTool(
      "/usr/sbin/useradd",
      ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name])
    // Another test process may have created it meanwhile: look again either way.
    if let user = lookUp() { return .success(user) }
    return .failure(HarnessError("cannot create the user \(name): \(result.map(\.description) ?? "useradd did not run")"))
  }()

  static func require() throws -> TestUser { try shared.get() }

  private static func lookUp() -> TestUser? {
    guard let entry = getpwnam(name) else { return nil }
    return TestUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
  }

  /// Gives `url` and everything under it to this user.
  func own(_ url: URL) throws {
    let result = try TestUser.runTool("/bin/chown", ["-R", "\(uid):\(gid)", url.path])
    guard result.exited(with: 0) else { throw HarnessError("chown failed:\n\(result)") }
  }

  /// `setpriv` running `executable` with `arguments` as this user.
  func wrap(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
    (
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--", executable.path] + arguments
    )
  }

  private static func runTool(_ path: String, _ arguments: [String]) throws -> CommandResult {
    try ChildProcess(
      executable: URL(fileURLWithPath: path), arguments: arguments, environment: ProcessInfo.processInfo.environment
    ).wait(timeout: .seconds(30))
  }
}
