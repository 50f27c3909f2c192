import Foundation
import Testing

/// `share id`: the device identity is made once, kept owner-only, and printed in both forms.
@Suite struct IdentityTests {
  @Test func idCreatesTheIdentityOnceAndKeepsTheKeyOwnerOnly() throws {
    let a = try ShareHome(name: "alice")
    let first = try a.share("id")
    let second = try a.share("id")
    #expect(first.exited(with: 0) && second.exited(with: 0), "\(first)\n\(second)")
    #expect(first.stdoutText == second.stdoutText)
    #expect(first.stdoutLines.first == "Name: alice")
    let key = a.home.appendingPathComponent("identity/key.pem")
    #expect(permissions(key) == 0o600)
    #expect(FileManager.default.fileExists(atPath: a.home.appendingPathComponent("identity/cert.pem").path))
  }

  @Test func idJSONHasNameIDShortIDAndCertificateAndTheHumanFormGroupsTheSameID() throws {
    let a = try ShareHome(name: "alice")
    let json = try a.share("id", "--json")
    #expect(json.exited(with: 0), "\(json)")
    let objects = try parseJSONLines(json.stdoutText)
    #expect(objects.count == 1)
    let object = try #require(objects.first)
    #expect(Set(object.keys) == ["name", "id", "short_id", "certificate"])
    let id = try #require(object["id"] as? String)
    #expect(id.count == 64 && id.allSatisfy { "0123456789abcdef".contains($0) }, "\(id)")
    let shortID = try #require(object["short_id"] as? String)
    #expect(!shortID.isEmpty && id.hasPrefix(shortID))
    #expect(object["name"] as? String == "alice")
    #expect(object["certificate"] as? String == a.home.appendingPathComponent("identity/cert.pem").path)

    let human = try a.share("id")
    var groups: [Substring] = []
    var rest = Substring(id)
    while !rest.isEmpty {
      groups.append(rest.prefix(4))
      rest = rest.dropFirst(4)
    }
    #expect(human.stdoutLines == ["Name: alice", "ID:   " + groups.joined(separator: "-")], "\(human)")
  }

  @Test func theIDIsTheSHA256OfTheCertificatesPublicKeyAsTheREADMEChecksIt() throws {
    let a = try ShareHome(name: "alice")
    let id = try a.deviceID()
    let certificate = a.home.appendingPathComponent("identity/cert.pem").path
    let check = try ChildProcess(
      executable: URL(fileURLWithPath: "/bin/sh"),
      arguments: ["-c", "openssl x509 -in \"$1\" -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum", "sh", certificate],
      environment: ProcessInfo.processInfo.environment
    ).wait()
    #expect(check.exited(with: 0), "\(check)")
    #expect(check.stdoutText.split(separator: " ").first.map(String.init) == id)
  }

  @Test func shareHomeInTheEnvironmentSelectsTheHomeLikeDashDashHome() throws {
    let a = try ShareHome(name: "alice")
    let viaOption = try a.deviceID()
    let viaEnvironment = try a.run(["id", "--json"], environment: ["SHARE_HOME": a.home.path])
    #expect(viaEnvironment.exited(with: 0), "\(viaEnvironment)")
    #expect(try parseJSONLines(viaEnvironment.stdoutText).first?["id"] as? String == viaOption)
  }
}
