import Foundation
import Glibc
import System
import Testing

/// Landlock through `System`: a thread that confines itself can still change files beneath the
/// folders it allowed, and nowhere else. (Confinement is per thread: the test confines a thread
/// of its own, which then ends; the test process is not affected.)
@Suite struct LandlockTests {
  @Test func theKernelOffersLandlock() throws {
    // This project's machines run a kernel with Landlock (ABI 7); elsewhere the daemon warns.
    guard case .success(let abi) = Landlock.abiVersion() else {
      Issue.record("no Landlock here: \(Landlock.abiVersion())")
      return
    }
    #expect(abi >= 1)
  }

  @Test func aConfinedThreadChangesFilesOnlyBeneathWhatItAllowed() throws {
    guard case .success(let abi) = Landlock.abiVersion() else { return }
    let root = try TemporaryDirectory()
    defer { root.remove() }
    let allowed = root.path + "/allowed"
    let other = root.path + "/other"
    for folder in [allowed, other] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    let existing = other + "/existing.txt"
    try Data("before\n".utf8).write(to: URL(fileURLWithPath: existing))

    let outcome = Background { () throws -> [String: Errno?] in
      let ruleset = try Landlock.Ruleset(handling: .modifications(abi: abi))
      try ruleset.allow(.modifications(abi: abi), beneath: allowed)
      try ruleset.restrictSelf()
      func attempt(_ body: () throws -> Void) -> Errno? {
        do {
          try body()
          return nil
        } catch { return error as? Errno ?? .ioError }
      }
      return [
        "create inside": attempt {
          try FileDescriptor.open(allowed + "/new.txt", .writeOnly, options: .create, permissions: .ownerReadWrite).close()
        },
        "mkdir inside": attempt { try FileSystem.makeDirectory(allowed + "/sub", permissions: .ownerReadWriteExecute) },
        "create outside": attempt {
          try FileDescriptor.open(other + "/new.txt", .writeOnly, options: .create, permissions: .ownerReadWrite).close()
        },
        "truncate outside": attempt { try FileDescriptor.open(existing, .writeOnly, options: .truncate).close() },
        "remove outside": attempt { try FileSystem.remove(existing) },
        "read outside": attempt { try FileDescriptor.open(existing, .readOnly).close() },
      ]
    }
    let results = try outcome.wait()
    #expect(results["create inside"] == .some(nil))
    #expect(results["mkdir inside"] == .some(nil))
    #expect(results["read outside"] == .some(nil))
    #expect(results["create outside"] == .some(.permissionDenied))
    #expect(results["truncate outside"] == .some(.permissionDenied))
    #expect(results["remove outside"] == .some(.permissionDenied))
    #expect(try String(contentsOfFile: existing, encoding: .utf8) == "before\n")
  }
}
