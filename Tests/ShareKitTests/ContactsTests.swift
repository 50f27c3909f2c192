import Foundation
import Glibc
import Synchronization
import TLS
import Testing

@testable import ShareKit

/// The contacts store: the one writer of `trust.json` and `known_peers.json`, locked, atomic,
/// durable, owner-only.
@Suite struct ContactsTests {
  let home = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-contacts-\(UUID().uuidString)")
  var contacts: Contacts { Contacts(paths: SharePaths(home: home)) }

  static func id(_ n: Int) -> Fingerprint {
    var bytes = Array(repeating: UInt8(0x5a), count: 32)
    withUnsafeBytes(of: UInt32(n).bigEndian) { bytes.replaceSubrange(28..<32, with: $0) }
    return Fingerprint(bytes: bytes)!
  }

  @Test func writersRacingThroughTheirOwnDescriptorsLoseNoUpdate() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    let writers = 8
    let perWriter = 20
    let failures = Mutex<[String]>([])
    let group = DispatchGroup()
    for writer in 0..<writers {
      group.enter()
      // Each writer is its own Contacts value, as each process would be: every change opens
      // the lock file anew (its own open file description), so flock serialises them.
      let contacts = self.contacts
      Thread {
        defer { group.leave() }
        for step in 0..<perWriter {
          let n = writer * perWriter + step
          do {
            try contacts.trust(TrustedPeer(id: Self.id(n), name: PeerText("peer-\(n)")))
            try contacts.remember([(name: "name-\(n)", id: Self.id(n))])
          } catch {
            failures.withLock { $0.append("\(error)") }
          }
        }
      }.start()
    }
    group.wait()
    #expect(failures.withLock { $0 }.isEmpty)
    let trusted = try contacts.trusted()
    let (known, warning) = contacts.remembered()
    #expect(warning == nil)
    #expect(trusted.peers.count == writers * perWriter)
    #expect(known.entries.count == writers * perWriter)
    let all = 0..<(writers * perWriter)
    #expect(all.filter { !trusted.trusts(Self.id($0)) } == [], "contacts lost")
    #expect(all.filter { known.id(for: "name-\($0)") != Self.id($0) } == [], "remembered names lost")
  }

  @Test func aWriterWaitsWhileAnotherHoldsTheLock() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    let contacts = self.contacts
    try contacts.trust(TrustedPeer(id: Self.id(0), name: "first"))
    // Another process holding the lock: its own descriptor on the same lock file.
    let fd = open(contacts.lockFile.path, O_RDWR | O_CLOEXEC)
    #expect(fd >= 0)
    #expect(flock(fd, LOCK_EX) == 0)
    let done = Atomic<Bool>(false)
    Thread {
      _ = try? contacts.trust(TrustedPeer(id: Self.id(1), name: "second"))
      done.store(true, ordering: .sequentiallyConsistent)
    }.start()
    usleep(200_000)
    let finishedWhileLocked = done.load(ordering: .sequentiallyConsistent)
    #expect(!finishedWhileLocked)
    #expect(try contacts.trusted().peers.count == 1)
    close(fd)
    let deadline = ContinuousClock.now + .seconds(10)
    while !done.load(ordering: .sequentiallyConsistent) && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(try contacts.trusted().trusts(Self.id(1)))
  }

  @Test func theFilesAreOwnerOnlyAndNoTemporaryFileIsLeft() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try contacts.pair(with: TrustedPeer(id: Self.id(7), name: "lab-b"))
    for url in [contacts.trustFile, contacts.knownPeersFile, contacts.lockFile] {
      var info = stat()
      #expect(stat(url.path, &info) == 0)
      #expect(info.st_mode & 0o777 == 0o600, "\(url.lastPathComponent)")
    }
    var folder = stat()
    #expect(stat(home.path, &folder) == 0)
    #expect(folder.st_mode & 0o777 == 0o700)
    let names = try FileManager.default.contentsOfDirectory(atPath: home.path)
    #expect(Set(names) == ["trust.json", "known_peers.json", "contacts.lock"])
    #expect(try contacts.trusted().peer(named: "lab-b")?.id == Self.id(7))
    #expect(contacts.remembered().0.id(for: "lab-b") == Self.id(7))
  }

  @Test func aDamagedContactsFileIsAnErrorAndIsLeftAsItWas() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    try Data("{not json".utf8).write(to: contacts.trustFile)
    #expect(throws: ShareError.self) { try contacts.trust(TrustedPeer(id: Self.id(1), name: "x")) }
    #expect(try String(contentsOf: contacts.trustFile, encoding: .utf8) == "{not json")
    // The lock was released: another change goes through.
    #expect(try contacts.forget(name: "y") == nil)
    // Nothing is remembered while the contacts cannot be read: a name could be a contact's.
    #expect(throws: ShareError.self) { try contacts.remember([(name: "y", id: Self.id(2))]) }
    #expect(contacts.remembered().0.id(for: "y") == nil)
  }

  /// Review 17: one send by ID prefix to a stranger advertising a contact's name pinned that
  /// name to the stranger, and every later send to the contact went to it.
  @Test func aContactsNameOrOneLikeItIsNeverRememberedForAnotherDevice() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try contacts.trust(TrustedPeer(id: Self.id(1), name: "bob"))
    try contacts.remember([(name: "bob", id: Self.id(2)), (name: "BOB", id: Self.id(2)), (name: "b\u{043E}b", id: Self.id(2))])
    try contacts.remember([(name: "carol", id: Self.id(2)), (name: "bob", id: Self.id(1))])
    let known = contacts.remembered().0
    #expect(known.entries.map(\.name).sorted() == ["bob", "carol"], "\(known.entries)")
    #expect(known.id(for: "bob") == Self.id(1))
    // A pin made before the contact (or by an older build) does not take the contact's sends.
    var pinned = KnownPeers()
    pinned.remember(name: "bob", id: Self.id(2))
    let book = KnownIdentities(own: nil, trust: try contacts.trusted(), known: pinned)
    #expect(book.id(for: "bob") == Self.id(1) && book.id(for: "BOB") == Self.id(1))
    #expect(book.standing(name: "bob", id: Self.id(2)) == .nameKnownWith(Self.id(1)))
  }

  /// Review 32: a send by ID prefix to a device advertising a pinned name moved the pin to it,
  /// and `--to NAME` then went there without a word. A pin stays; the one kept is returned.
  @Test func aPinnedNameKeepsItsIDAndTheOtherIsReturned() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    #expect(try contacts.remember([(name: "lab", id: Self.id(1))]).isEmpty)
    let kept = try contacts.remember([(name: "lab", id: Self.id(2)), (name: "lab-c", id: Self.id(3))])
    #expect(kept.map(\.name) == ["lab"] && kept.first?.id == Self.id(2) && kept.first?.pinned == Self.id(1))
    #expect(contacts.remembered().0.id(for: "lab") == Self.id(1))
    #expect(contacts.remembered().0.id(for: "lab-c") == Self.id(3))
    // The same ID again is no change and nothing to say; once forgotten, the name is learned anew.
    #expect(try contacts.remember([(name: "lab", id: Self.id(1))]).isEmpty)
    #expect(try contacts.forget(name: "lab") == Self.id(1))
    #expect(try contacts.remember([(name: "lab", id: Self.id(2))]).isEmpty)
    #expect(contacts.remembered().0.id(for: "lab") == Self.id(2))
  }

  /// Found by an outside review: a damaged file was read as empty for a send's check (any
  /// device could answer under a pinned name) and replaced by the next send's one pin.
  @Test func aDamagedKnownPeersFileFailsChecksAndIsNeverWrittenOver() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    try Data("garbage".utf8).write(to: contacts.knownPeersFile)
    let (empty, warning) = contacts.remembered()
    #expect(empty.entries.isEmpty, "a listing reads it as empty")
    #expect(warning?.contains("damaged") == true)
    #expect(throws: ShareError.self) { try contacts.rememberedForChecking() }
    #expect(throws: ShareError.self) { try contacts.remember([(name: "lab-b", id: Self.id(3))]) }
    #expect(throws: ShareError.self) { try contacts.forget(name: "lab-b") }
    #expect(try String(contentsOf: contacts.knownPeersFile, encoding: .utf8) == "garbage")
    // Removed, names are remembered afresh.
    try FileManager.default.removeItem(at: contacts.knownPeersFile)
    try contacts.remember([(name: "lab-b", id: Self.id(3))])
    #expect(try contacts.rememberedForChecking().id(for: "lab-b") == Self.id(3))
  }

  @Test func aNameIsPinnedWhateverItsLetterCase() throws {
    var known = KnownPeers()
    known.remember(name: "bob-dev", id: Self.id(1))
    #expect(known.id(for: "BOB-DEV") == Self.id(1) && known.id(for: "Bob-Dev") == Self.id(1))
    known.remember(name: "Bob-Dev", id: Self.id(2))
    #expect(known.entries.count == 1 && known.id(for: "bob-dev") == Self.id(2))
    #expect(known.forget(name: "BOB-dev") == Self.id(2) && known.entries.isEmpty)
  }

  /// Found by a review: pairing by an ID prefix with a device that advertises a pinned name
  /// (another letter case) re-pinned the name to it.
  @Test func pairingKeepsANamePinnedToAnotherDevice() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try contacts.remember([(name: "lab-b", id: Self.id(1))])
    try contacts.pair(with: TrustedPeer(id: Self.id(2), name: "Lab-B"))
    #expect(try contacts.rememberedForChecking().id(for: "lab-b") == Self.id(1))
    try contacts.pair(with: TrustedPeer(id: Self.id(3), name: "new-one"))
    #expect(try contacts.rememberedForChecking().id(for: "new-one") == Self.id(3))
  }

  /// Review 27: `share pair` with a device calling itself like a contact made a second contact
  /// of that name; `--to bob` then picked either, and its items showed as the contact's.
  @Test func pairingNeverMakesASecondContactOfOneName() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try contacts.trust(TrustedPeer(id: Self.id(1), name: "bob"))
    for name in ["bob", "Bob", "b0b", "bob (1)"] {
      #expect(throws: ShareError.self) { try contacts.pair(with: TrustedPeer(id: Self.id(2), name: PeerText(name))) }
    }
    #expect(try contacts.trusted().peers.count == 1)
    // The contact itself pairs again under its name; another name is a new contact.
    try contacts.pair(with: TrustedPeer(id: Self.id(1), name: "bob"))
    try contacts.pair(with: TrustedPeer(id: Self.id(2), name: "carol"))
    #expect(try contacts.trusted().peers.map(\.name.unescaped).sorted() == ["bob", "carol"])
  }

  @Test func untrustRemovesExactlyOneMatchOrNothing() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try contacts.trust(TrustedPeer(id: Self.id(1), name: "laptop"))
    try contacts.trust(TrustedPeer(id: Self.id(2), name: "phone"))
    #expect(try contacts.untrust(matching: "tablet") == .noMatch)
    guard case .ambiguous(let both) = try contacts.untrust(matching: "5a5a") else {
      Issue.record("an ID prefix shared by two contacts must be ambiguous")
      return
    }
    #expect(both.count == 2)
    #expect(try contacts.trusted().peers.count == 2)
    guard case .removed(let removed) = try contacts.untrust(matching: "laptop") else {
      Issue.record("a unique name must be removed")
      return
    }
    #expect(removed.id == Self.id(1))
    #expect(try contacts.trusted().peers.map(\.name) == ["phone"])
  }

  @Test func forgetReturnsTheIDItForgotOrNil() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    #expect(try contacts.forget(name: "lab-b") == nil)
    try contacts.remember([(name: "lab-b", id: Self.id(4)), (name: "lab-c", id: Self.id(5))])
    #expect(try contacts.forget(name: "lab-b") == Self.id(4))
    #expect(contacts.remembered().0.id(for: "lab-b") == nil)
    #expect(contacts.remembered().0.id(for: "lab-c") == Self.id(5))
  }
}
