import Discovery
import Foundation
import Testing

/// Two test hosts in network namespaces (scripts/netns-hosts.sh), each with
/// its own D-Bus and avahi-daemon, joined by a veth pair in 198.18.0.0/24.
/// Only the Avahi CLIs run inside them: this test process stays on the host.
@Suite(.serialized) struct NetnsHostsTests {
  private let script = repositoryRoot.appendingPathComponent("scripts/netns-hosts.sh").path

  @Test func serviceAnnouncedOnHostAIsResolvedFromHostBAtItsVethAddress() async throws {
    try runScript("netns-hosts.sh", ["up"])
    defer { _ = try? runScript("netns-hosts.sh", ["down"]) }

    let name = uniqueName("netns")
    let publisher = try ChildProcess(
      "/bin/bash",
      [script, "exec", "share-a", "avahi-publish", "-s", name, "_share._tcp", "4000", "v=1"])
    defer { publisher.stop() }

    // avahi-browse -t exits after "all for now"; the announcement may not have
    // arrived by then, so ask again, a bounded number of times.
    let expected = "=;veth-b;IPv4;\(name);_share._tcp;local;share-a.local;198.18.0.1;4000;\"v=1\""
    var lines: [Substring] = []
    for _ in 0..<20 where !lines.contains(where: { $0 == expected }) {
      let browse = try run(
        "/bin/bash", [script, "exec", "share-b", "avahi-browse", "-rtp", "_share._tcp"])
      lines = browse.output.split(separator: "\n").filter { $0.contains(";\(name);") }
    }
    #expect(lines.contains { $0 == expected }, "publisher: \(publisher.output)\nseen: \(lines)")
  }

  @Test func downRemovesTheNamespacesAndIsIdempotent() throws {
    try runScript("netns-hosts.sh", ["up"])
    try runScript("netns-hosts.sh", ["down"])
    try runScript("netns-hosts.sh", ["down"])
    let namespaces = try run("/usr/sbin/ip", ["netns", "list"])
    #expect(!namespaces.output.contains("share-a") && !namespaces.output.contains("share-b"))
    #expect(!FileManager.default.fileExists(atPath: "/run/share-netns"))
  }
}
