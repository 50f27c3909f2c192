import Foundation
import Glibc
import Testing

/// Another local user cannot take over the control socket (issue 11.1): not by creating the
/// shared fallback folder first, not by serving a socket where the commands look for it.
///
/// The tests need a second user. They run as root and use `nobody` (uid 65534) through
/// `setpriv`, so that `/tmp/share-65534` — a folder no other test touches — is the contested one.
@Suite(.serialized) struct ControlSocketTests {
  static let otherUser: uid_t = 65534

  @Test func aDaemonWhoseSharedSocketFolderIsSomeoneElsesSymlinkRefusesToStartAndChangesNothing() throws {
    try requireRoot()
    let fileManager = FileManager.default
    let scratch = try ShareHome(name: "victim")
    // The attacker's folder, writable by anyone, and the link to it in the victim's place.
    let target = scratch.root.appendingPathComponent("attacker")
    try fileManager.createDirectory(at: target, withIntermediateDirectories: true)
    chmod(target.path, 0o777)
    let shared = "/tmp/share-\(Self.otherUser)"
    _ = unlink(shared)
    _ = rmdir(shared)
    guard symlink(target.path, shared) == 0 else { throw HarnessError("symlink \(shared): errno \(errno)") }
    defer { unlink(shared) }

    // The victim's home is deep enough that its socket falls back to /tmp/share-UID.
    let home = scratch.root.appendingPathComponent("victim-" + String(repeating: "d", count: 90))
    try fileManager.createDirectory(at: home, withIntermediateDirectories: true)
    try Data(#"{"name":"victim"}"#.utf8).write(to: home.appendingPathComponent("settings.json"))
    try chownTree(home, to: Self.otherUser)

    let daemon = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
      arguments: asOtherUser([try ShareBinary.require().path, "--home", home.path, "daemon", "--port", "0", "--host", "127.0.0.1"]),
      environment: scratch.environment())
    let result = daemon.wait(timeout: .seconds(20))
    #expect(result.exited(with: 1), "the daemon started with its socket folder in another user's hands:\n\(result)")
    #expect(result.stderrText.contains(shared) && result.stderrText.contains("symbolic link"), "\(result)")
    var info = stat()
    #expect(lstat(target.path, &info) == 0 && info.st_mode & 0o7777 == 0o777, "the attacker's folder changed mode")
    #expect((try? fileManager.contentsOfDirectory(atPath: target.path)) == [], "the daemon put something in the attacker's folder")
  }

  @Test func aCommandRefusesAControlSocketServedByAnotherUserAndSendsItNothing() throws {
    try requireRoot()
    let b = try ShareHome(name: "bob")
    // The home's runtime folder leads to a folder of another user's, where that user serves a
    // socket that answers every request with "ok" and prints what it was sent.
    let foreign = b.root.appendingPathComponent("foreign")
    try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
    try chownTree(foreign, to: Self.otherUser)
    guard symlink(foreign.path, b.home.appendingPathComponent("run").path) == 0 else {
      throw HarnessError("symlink: errno \(errno)")
    }
    let socket = foreign.appendingPathComponent("control.sock").path
    let server = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
      arguments: asOtherUser(["/usr/bin/perl", "-e", Self.fakeServer, socket]), environment: b.environment())
    defer {
      server.signal(SIGKILL)
      _ = server.wait(timeout: .seconds(5))
    }
    #expect(
      server.waitFor(timeout: .seconds(10)) { stdout, _, exited in
        exited || String(decoding: stdout, as: UTF8.self).contains("ready")
      }, "the fake server did not start")

    let result = try b.share("receive", "off")
    #expect(result.exited(with: 1), "\(result)")
    #expect(result.stderrText.contains("\(Self.otherUser)"), "the error does not name the user serving the socket:\n\(result)")
    usleep(200_000)
    #expect(!server.stdoutSoFarText.contains("got:"), "the command sent its request to another user's socket:\n\(server.stdoutSoFarText)")
  }

  /// A control socket server in Perl (perl-base is always installed on Debian): prints "ready",
  /// then for each connection what it received and answers `{"ok":true}`.
  static let fakeServer = """
    use IO::Socket::UNIX; $| = 1;
    my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 5) or die "listen: $!";
    print "ready\\n";
    while (my $c = $s->accept) { my $line = <$c>; print "got: $line\\n" if defined $line; print $c "{\\"ok\\":true}\\n"; close $c; }
    """

  /// `setpriv` arguments that run `command` as `nobody`.
  func asOtherUser(_ command: [String]) -> [String] {
    ["--reuid=\(Self.otherUser)", "--regid=\(Self.otherUser)", "--clear-groups", "--"] + command
  }

  func requireRoot() throws {
    guard getuid() == 0 else { throw HarnessError("this test needs root, to act as a second user") }
  }

  /// Gives `url` and everything under it to `user`.
  func chownTree(_ url: URL, to user: uid_t) throws {
    let paths = [url.path] + (FileManager.default.subpaths(atPath: url.path) ?? []).map { url.appendingPathComponent($0).path }
    for path in paths where lchown(path, user, gid_t(user)) != 0 {
      throw HarnessError("chown \(path): errno \(errno)")
    }
  }
}

extension ChildProcess {
  /// Everything it printed on stdout so far, as text.
  var stdoutSoFarText: String { String(decoding: stdoutSoFar, as: UTF8.self) }
}
