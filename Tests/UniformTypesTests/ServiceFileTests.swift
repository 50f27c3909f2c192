import Foundation
import Testing

@testable import UniformTypes

/// Review 21: `*.service` is a D-Bus service file and a systemd unit to shared-mime-info, both
/// plain text to libmagic; the first glob was taken, so a systemd unit was described as a D-Bus
/// service file. The first group tells them apart.
@Suite struct ServiceFileTests {
  let registry = TypeRegistry.system()
  static let unit: TypeIdentifier = .dynamic(mimeType: "text/x-systemd-unit")
  static let dbus: TypeIdentifier = .dynamic(mimeType: "text/x-dbus-service")

  func check(_ name: String, _ text: String) throws -> CheckReport {
    try TypePolicy(registry: registry, declarations: .builtinDefault).check(writing: Array(text.utf8), as: name)
  }

  @Test func aServiceFileIsWhatItsFirstGroupSays() throws {
    try #require(registry.types(forFilename: "x.service").contains(Self.unit), "shared-mime-info is installed")
    let unit = try check("backup.service", "# a comment\n[Unit]\nDescription=Backup\n\n[Service]\nExecStart=/bin/true\n")
    #expect(unit.verdict.accepted && unit.verdict.type == Self.unit && unit.nameType == Self.unit, "\(unit)")
    let socket = try check("web.service", "[Service]\nExecStart=/bin/true\n")
    #expect(socket.verdict.type == Self.unit && socket.nameType == Self.unit, "\(socket)")
    let dbus = try check("org.example.Thing.service", "[D-BUS Service]\nName=org.example.Thing\nExec=/bin/true\n")
    #expect(dbus.verdict.accepted && dbus.verdict.type == Self.dbus && dbus.nameType == Self.dbus, "\(dbus)")
  }

  @Test func aScriptIsStillAScriptAndOtherTextStaysText() throws {
    let script = try check("run.service", "#!/bin/sh\n[Unit]\n")
    #expect(!script.verdict.accepted && script.verdict.type == .shellScript, "\(script)")
    let notes = try check("notes.txt", "[Notes]\nUnit=3\n")
    #expect(notes.verdict.type == .plainText, "\(notes)")
  }
}
