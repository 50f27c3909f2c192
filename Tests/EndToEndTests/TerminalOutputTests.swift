import Foundation
import Testing

/// Colour only on a terminal, and never with `NO_COLOR` or `TERM=dumb`.
@Suite struct TerminalOutputTests {
  /// A usage error, which `share` prints as a red `Error:` when colour is allowed.
  static let mistake = ["send", "x.txt", "--tto", "127.0.0.1:9"]

  /// Runs the mistake with stderr on a pseudo-terminal; returns what the terminal showed.
  func onATerminal(_ environment: [String: String?]) throws -> (CommandResult, Data) {
    let home = try ShareHome(name: "alice")
    let terminal = try Pseudoterminal()
    let child = try home.start(Self.mistake, environment: environment, stderr: terminal.terminal)
    let shown = terminal.closeAndCollect()
    return (child.wait(), shown)
  }

  @Test func errorsOnAPipeHaveNoANSIEscapesEvenWithAColourTerminalType() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(Self.mistake, environment: ["TERM": "xterm-256color"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(!result.stderr.isEmpty)
    #expect(!result.stderr.contains(escapeByte), "\(result)")
    #expect(!result.stdout.contains(escapeByte))
  }

  @Test func errorsOnATerminalAreColoured() throws {
    let (result, shown) = try onATerminal(["TERM": "xterm-256color"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(String(decoding: shown, as: UTF8.self).contains("unknown option"), "the terminal showed: \(shown)")
    #expect(shown.contains(escapeByte), "no colour on a terminal: \(String(decoding: shown, as: UTF8.self).debugDescription)")
  }

  @Test func noColorTurnsColourOffOnATerminal() throws {
    let (result, shown) = try onATerminal(["TERM": "xterm-256color", "NO_COLOR": "1"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(String(decoding: shown, as: UTF8.self).contains("unknown option"))
    #expect(!shown.contains(escapeByte), "\(String(decoding: shown, as: UTF8.self).debugDescription)")
  }

  @Test func termDumbTurnsColourOffOnATerminal() throws {
    let (result, shown) = try onATerminal(["TERM": "dumb"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(String(decoding: shown, as: UTF8.self).contains("unknown option"))
    #expect(!shown.contains(escapeByte), "\(String(decoding: shown, as: UTF8.self).debugDescription)")
  }
}
