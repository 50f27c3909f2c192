import Foundation
import Glibc
import ShareKit
import Testing

/// Attacks from the same machine or that exhaust the daemon: its control socket, its log, its
/// connection slots, its disk, its files.
extension AdversarialTests {
  // MARK: Control socket takeover (issue 11.1, fixed)

  /// Run in a private mount namespace with a tmpfs of its own on /tmp, so the hostile
  /// `/tmp/share-UID` is seen by this daemon only. The home is deep enough that the control
  /// socket falls back to `/tmp/share-UID/`, which "another user" (uid 65534) made first: a
  /// symlink to a folder of theirs. The daemon (mode off: it advertises nothing) gets 5 s.
  @Test(.enabled(if: MountNamespace.available, "needs root and unshare for a private /tmp"))
  func aSymlinkedControlSocketFolderMakesTheDaemonRefuseToStart() throws {
    let script = #"""
      mount -t tmpfs share-e2e-tmp /tmp || exit 97
      home=/tmp/$(printf 'deep-home-%.0s' 1 2 3 4 5 6 7 8 9 10)
      mkdir -p "$home" && printf '{"name":"adv-victim"}' > "$home/settings.json"
      mkdir -m 0755 /tmp/attacker && chown 65534:65534 /tmp/attacker
      ln -s /tmp/attacker "/tmp/share-$(id -u)" && chown -h 65534:65534 "/tmp/share-$(id -u)"
      timeout 5 "$1" --home "$home" daemon --mode off --port 0 --host 127.0.0.1 >/tmp/out 2>/tmp/err
      echo "status=$?"
      echo "mode=$(stat -c %a /tmp/attacker)"
      echo "contents=$(ls -A /tmp/attacker | tr '\n' ' ')"
      echo "--- daemon's stderr"; cat /tmp/err
      """#
    let result = try MountNamespace.run(
      script, arguments: [try ShareBinary.require().path], environment: ProcessInfo.processInfo.environment)
    #expect(result.exited(with: 0), "\(result)")
    let lines = result.stdoutLines
    #expect(lines.contains("mode=755"), "the daemon changed the mode of another user's folder:\n\(result.stdoutText)")
    #expect(lines.contains("contents="), "the daemon put its socket in another user's folder:\n\(result.stdoutText)")
    #expect(!lines.contains("status=124"), "the daemon started (and ran until killed):\n\(result.stdoutText)")
    #expect(result.stdoutText.contains("/tmp/share-"), "the refusal does not name the folder:\n\(result.stdoutText)")
  }

  /// The fallback folder is a real directory, but another user's (they made it first), and their
  /// process serves the socket a command connects to. `share requests` must not believe it.
  @Test(.enabled(if: MountNamespace.available, "needs root and unshare for a private /tmp"))
  func aCommandRefusesAControlSocketServedByAnotherUser() throws {
    let home = "/tmp/" + String(repeating: "deep-home-", count: 10)
    let socket = SharePaths(home: URL(fileURLWithPath: home)).controlSocket.path
    try #require(socket.hasPrefix("/tmp/share-"), "the home is not deep enough to use the fallback: \(socket)")
    let script = #"""
      mount -t tmpfs share-e2e-tmp /tmp || exit 97
      mkdir -p "$2" && printf '{"name":"adv-victim"}' > "$2/settings.json"
      dir=$(dirname "$3"); mkdir -m 0755 "$dir" && chown 65534:65534 "$dir"
      setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -c '
      import socket, sys
      s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); print("ready", flush=True)
      while True:
          c, _ = s.accept(); c.recv(65536)
          c.sendall(b"{\"ok\":false,\"error\":\"ANSWERED-BY-ANOTHER-USER\"}\n"); c.close()
      ' "$3" &
      for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$3" ] && break; sleep 0.2; done
      "$1" --home "$2" requests; echo "status=$?"
      kill $!
      """#
    let result = try MountNamespace.run(
      script, arguments: [try ShareBinary.require().path, home, socket], environment: ProcessInfo.processInfo.environment)
    #expect(result.stdoutText.contains("status="), "\(result)")
    #expect(!result.stderrText.contains("ANSWERED-BY-ANOTHER-USER"), "another user's process answered share requests:\n\(result)")
    #expect(!result.stdoutLines.contains("status=0"), "\(result)")
  }

  // MARK: Terminal injection in the daemon's log (issue 11.2, fixed)

  @Test func aStrangersDeviceNameReachesTheDaemonsLogEscaped() throws {
    let arena = try Arena(malloryIsContact: false, daemonArguments: ["--mode", "everyone"])
    // A device name holds at most 63 bytes: a title change, a clear screen and a bidi override fit.
    let stranger = try ShareHome(name: "mallory\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}")
    let asking = try stranger.startShare("send", try stranger.file("hi.txt", "hi\n").path, "--to", arena.daemon.address)
    guard let ask = try arena.waitForPendingAsk() else {
      Issue.record("the stranger's ask never arrived:\n\(asking.wait(timeout: .seconds(1)))\n--- daemon:\n\(arena.daemon.log)")
      return
    }
    let declined = try arena.receiver.share("decline", String(ask))
    #expect(declined.exited(with: 0), "\(declined)")
    #expect(asking.wait(timeout: .seconds(20)).status == 4)
    #expect(arena.daemon.waitForLog("declined ask"), "\(arena.daemon.log)")
    let raw = HostileNameTests.rawControls(in: Data(arena.daemon.log.utf8))
    #expect(raw.isEmpty, "raw \(raw) in the daemon's log:\n\(arena.daemon.log.debugDescription)")
    arena.expectIntact()
  }

  // MARK: Receiving blocked without authenticating (issue 11.3, fixed)

  @Test func sixtyFourSilentTLSConnectionsDoNotStopAContactsSend() throws {
    let arena = try Arena(malloryIsContact: false)
    let sources = (2...9).map { "127.0.0.\($0)" }
    var flood: [RawPeer] = []
    for source in sources {
      let identity = try ThrowawayIdentity(name: "flood-\(source)")
      for _ in 0..<8 {
        if let peer = try? RawPeer(port: arena.daemon.port, identity: identity.identity, from: source) { flood.append(peer) }
      }
    }
    #expect(flood.count == 64, "only \(flood.count) of 64 connections finished TLS")
    let sent = try arena.contact.share("send", try arena.contact.file("during-flood.txt", "hi\n").path, "--to", arena.daemon.address)
    #expect(sent.exited(with: 0), "a contact's send failed during the flood:\n\(sent)")
    for source in sources {
      let mentions = arena.daemon.log.split(separator: "\n").filter { $0.contains(source) }.count
      #expect((1..<8).contains(mentions), "\(source) is logged \(mentions) times for 8 connections:\n\(arena.daemon.log)")
    }
    flood.removeAll()
    arena.expectIntact()
  }

  // MARK: The disk reserve (issue 11.4, fixed)

  @Test(.enabled(if: MountNamespace.available, "needs root and unshare for a small private tmpfs"))
  func aStreamOfUnknownSizeDoesNotEatTheDiskReserve() throws {
    let (alice, bob) = (try ShareHome(name: "adv-alice"), try ShareHome(name: "adv-bob"))
    try bob.acceptEverything()
    let trusted = try bob.share("trust", "add", try alice.deviceID(), "--name", alice.name)
    #expect(trusted.exited(with: 0), "\(trusted)")
    let daemon = try SmallDiskDaemon(home: bob, megabytes: 96)
    let reserve: Int64 = 64 << 20
    let stream = Data(repeating: 0x5A, count: 48 << 20)
    let sent = try alice.run(["--home", alice.home.path, "send", "-", "--name", "stream.bin", "--to", daemon.address], stdin: stream)
    #expect(daemon.process.isRunning, "the daemon died:\n\(daemon.log)")
    let free = daemon.freeBytes ?? 0
    let inbox = Set((try? FileManager.default.contentsOfDirectory(atPath: daemon.seen(bob.inbox).path)) ?? [])
    let staging = (try? FileManager.default.contentsOfDirectory(atPath: daemon.seen(bob.staging).path)) ?? []
    // Before the reserve was enforced while writing (issue 11.4), the stream was stored and left 47 MiB free.
    #expect(free >= reserve, "\(free >> 20) MiB left free, under the 64 MiB reserve (send: exit \(sent.status))")
    #expect(!inbox.contains("stream.bin"), "the stream that broke the reserve was stored")
    #expect(!sent.exited(with: 0), "\(sent)")
    #expect(staging.isEmpty, "staging left behind: \(staging)")
  }

  /// Review 21: the files' reserve was checked once per Ask, against the free count of that
  /// moment: three asks of 2,000 empty files, each fitting alone on a disk of 3,000 files, were
  /// all accepted and left none free. Files are now admitted one by one, as bytes are.
  @Test(.enabled(if: MountNamespace.available, "needs root and unshare for a small private tmpfs"))
  func foldersSentAtOnceDoNotEatTheFilesReserve() throws {
    let (alice, bob) = (try ShareHome(name: "adv-alice"), try ShareHome(name: "adv-bob"))
    try bob.acceptEverything()
    #expect(try bob.share("trust", "add", try alice.deviceID(), "--name", alice.name).exited(with: 0))
    let daemon = try SmallDiskDaemon(home: bob, megabytes: 96, files: 3_000)
    let reserve: Int64 = 150  // a twentieth of 3,000
    let folders = try (0..<3).map { index in
      let folder = alice.home.appendingPathComponent("many-\(index)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      for file in 0..<2_000 { FileManager.default.createFile(atPath: folder.appendingPathComponent("e\(file)").path, contents: nil) }
      return folder
    }
    let sends = try folders.map { try alice.startShare("send", $0.path, "--to", daemon.address) }
    let outputs = sends.map { $0.wait(timeout: .seconds(120)) }.map { "\($0.stdoutText)\($0.stderrText)" }.joined()
    #expect(daemon.process.isRunning, "the daemon died:\n\(daemon.log)")
    // Before, all three were accepted and the disk ran out of files: entries failed with "disk is
    // full" (ENOSPC), which every other writer on that disk got too.
    #expect(!(outputs + daemon.log).contains("disk is full"), "the disk ran out of files:\n\(daemon.log.suffix(1_000))")
    #expect(outputs.contains("too few more files"), "the files' reserve never acted:\n\(outputs.suffix(1_000))")
    let free = daemon.freeFiles ?? 0
    #expect(free >= reserve, "\(free) files left free, under the reserve of \(reserve)")
    let staging = (try? FileManager.default.contentsOfDirectory(atPath: daemon.seen(bob.staging).path)) ?? []
    #expect(staging.isEmpty, "staging left behind: \(staging)")
  }

  // MARK: Lost updates (issue 11.6, fixed)

  @Test func concurrentWritersOfTheTrustStoreLoseNothing() throws {
    let home = try ShareHome(name: "adv-bob")
    _ = try home.deviceID()
    let ids = (0..<16).map { _ in (0..<64).map { _ in String("0123456789abcdef".randomElement()!) }.joined() }
    let writers = try ids.enumerated().map { index, id in try home.startShare("trust", "add", id, "--name", "peer-\(index)") }
    for writer in writers { #expect(writer.wait(timeout: .seconds(60)).exited(with: 0)) }
    let listed = try parseJSONLines(try home.share("trust", "list", "--json").stdoutText)
    let kept = Set(listed.compactMap { $0["id"] as? String })
    // Before the store was written under a lock (issue 11.6), 12 of these 16 were lost.
    #expect(kept.isSuperset(of: ids), "\(ids.count - kept.intersection(ids).count) of \(ids.count) contacts added at once were lost")
  }
}
