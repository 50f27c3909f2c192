import Foundation
import Testing

@testable import ShareKit

@Suite struct SharePathsTests {
  @Test func aHomeKeepsEverythingUnderOneFolder() {
    let paths = SharePaths(home: URL(fileURLWithPath: "/h"))
    #expect(paths.inbox.path == "/h/Documents/Inbox")
    #expect(paths.identity.path == "/h/identity")
    #expect(paths.controlSocket.path == "/h/run/control.sock")
  }

  @Test func xdgLocationsAreUsedWithoutAHome() {
    let paths = SharePaths.resolve(home: nil, environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_RUNTIME_DIR": "/run/user/1"])
    #expect(paths.config.path == "/c/share")
    #expect(paths.inbox.path == "/home/u/Documents/Inbox")
    #expect(paths.controlSocket.path == "/run/user/1/share/control.sock")
    #expect(SharePaths.resolve(home: nil, environment: ["HOME": "/home/u", "SHARE_HOME": "/s"]).config.path == "/s")
  }

  @Test func aHomeTooDeepForAUnixSocketGetsAShortSocketPathThatIsStable() {
    let deep = URL(fileURLWithPath: "/tmp/" + String(repeating: "d", count: 120))
    let first = SharePaths(home: deep).controlSocket.path
    #expect(first.utf8.count <= 107)
    #expect(first.hasPrefix("/tmp/share-\(getuid())/"))
    #expect(SharePaths(home: deep).controlSocket.path == first)
    #expect(SharePaths(home: URL(fileURLWithPath: "/tmp/" + String(repeating: "e", count: 120))).controlSocket.path != first)
  }
}
