import Foundation
import TLS
import Testing

@testable import ShareKit

/// Choosing the peer a `--to` means, with pinning, without Avahi: the records are values.
@Suite struct PeerResolverTests {
  typealias R = PeerRecords

  @Test func aNameOrAnIDPrefixChoosesThePeer() throws {
    let book = R.book()
    let peers = R.peers([R.record("lab-b", R.labB), R.record("laptop", R.laptop, port: 2)], book: book)
    #expect(try R.endpoint(for: "lab-b", among: peers, book: book).expectedFingerprint == R.labB)
    #expect(try R.endpoint(for: "LAPTOP", among: peers, book: book).expectedFingerprint == R.laptop)
    #expect(try R.endpoint(for: "c0c0-c0c0", among: peers, book: book).expectedFingerprint == R.laptop)
  }

  /// The record only claims an ID: nothing presented a certificate (review 29: the message said
  /// "presented certificate", and sent the owner to forget or re-pair the contact).
  @Test func aNameRememberedWithAnotherIDIsRefusedNamingBoth() {
    let book = R.book(sentTo: ["lab-b": R.labB])
    let impostor = R.peers([R.record("lab-b", R.mallory)], book: book)
    #expect {
      try R.endpoint(for: "lab-b", among: impostor, book: book)
    } throws: { error in
      let message = "\(error)"
      return message.contains("claims the device ID \(R.mallory.short)") && message.contains("knows lab-b as \(R.labB.short)")
        && message.contains("not advertised nearby") && !message.contains("presented")
    }
  }

  /// Review 29: a stranger took a contact's name while the contact was away; the contact came
  /// back as `carol #2`. A name this home knows goes by its ID: every record claiming it, under
  /// any name, the certificate deciding — the squatter's own record, or a copy of the contact's.
  @Test func aKnownNameGoesByItsIDWhateverTheRecordsAreCalledNow() throws {
    let book = R.book(contacts: ["carol": R.labB])
    let squatted = R.peers([R.record("carol", R.mallory, port: 1), R.record("carol #2", R.labB, port: 2)], book: book)
    let endpoint = try R.endpoint(for: "carol", among: squatted, book: book)
    #expect(endpoint.expectedFingerprint == R.labB && endpoint.candidates.map(\.port) == [2] && endpoint.label == "carol")
    let copied = R.peers([R.record("carol", R.labB, port: 1), R.record("carol #2", R.labB, port: 2)], book: book)
    let both = try R.endpoint(for: "carol", among: copied, book: book)
    #expect(both.expectedFingerprint == R.labB && Set(both.candidates.map(\.port)) == [1, 2])
  }

  @Test func aContactsNameWithAnotherIDIsRefused() {
    let book = R.book(contacts: ["lab-b": R.labB])
    #expect(throws: ShareError.self) {
      try R.endpoint(for: "lab-b", among: R.peers([R.record("lab-b", R.mallory)], book: book), book: book)
    }
  }

  @Test func whenSeveralClaimANameTheOneKnownByItIsChosen() throws {
    let records = [R.record("lab-b", R.mallory, port: 1, interface: 1), R.record("lab-b", R.labB, port: 2, interface: 2)]
    let book = R.book(sentTo: ["lab-b": R.labB])
    #expect(try R.endpoint(for: "lab-b", among: R.peers(records, book: book), book: book).expectedFingerprint == R.labB)
    #expect {
      try R.endpoint(for: "lab-b", among: R.peers(records, book: R.book()), book: R.book())
    } throws: { error in
      (error as? R.Ambiguous)?.peers.count == 2  // two unknown devices with one name: a person chooses
    }
  }

  @Test func withoutANameTheOnePeerNearbyIsChosenAndThisHomeNever() throws {
    let book = R.book()
    let peers = R.peers([R.record("me", R.me), R.record("lab-b", R.labB, port: 2)], book: book)
    #expect(try R.endpoint(for: nil, among: peers, book: book).expectedFingerprint == R.labB)
    #expect(throws: ShareError.self) {
      try R.endpoint(for: nil, among: R.peers([R.record("me", R.me)], book: book), book: book)
    }
    #expect(throws: ShareError.self) { try R.endpoint(for: "nobody", among: peers, book: book) }
    #expect {
      try R.endpoint(for: "b0b", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("an ID prefix needs at least 8 hex digits")
    }
  }

  /// Review 16: `--to dav` said only that nobody is called dav, though commands and options get
  /// "did you mean".
  @Test func aMisspeltNameSuggestsTheNearestPeerNearby() {
    let book = R.book()
    let peers = R.peers([R.record("dave", R.labB, port: 2), R.record("carol", R.laptop, port: 3)], book: book)
    #expect {
      try R.endpoint(for: "dav", among: peers, book: book)
    } throws: { error in
      "\(error)".hasPrefix("no nearby peer is called dav (did you mean 'dave'?); nearby: ")
    }
    // A name this home knows, its device away: said so, and no other device suggested for it
    // (review 32: "did you mean 'lab-b'?").
    let knowing = R.book(sentTo: ["lab": R.mallory])
    let away = R.peers([R.record("lab-b", R.labB, port: 2)], book: knowing)
    #expect {
      try R.endpoint(for: "lab", among: away, book: knowing)
    } throws: { error in
      "\(error)".hasPrefix("lab (\(R.mallory.short)), which this home knows, is not nearby; nearby: lab-b")
        && !"\(error)".contains("did you mean")
    }
    #expect {
      try R.endpoint(for: "zebra", among: peers, book: book)
    } throws: { error in
      !"\(error)".contains("did you mean")
    }
  }

  @Test func withoutANameAndSeveralNearbyAPersonChooses() throws {
    let book = R.book()
    let records = [R.record("a", R.labB, port: 1), R.record("b", R.laptop, port: 2), R.record("c", R.mallory, port: 3)]
    #expect {
      try R.endpoint(for: nil, among: R.peers(records, book: book), book: book)
    } throws: { error in
      (error as? R.Ambiguous)?.peers.map(\.name.unescaped).sorted() == ["a", "b", "c"]
    }
  }

  @Test func sendingToThisHomesOwnDaemonSaysSo() {
    let book = R.book()
    let peers = R.peers([R.record("me", R.me), R.record("lab-b", R.labB, port: 2)], book: book)
    #expect {
      try R.endpoint(for: "me", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("'me' is this device (me") && !"\(error)".contains("no nearby peer")
    }
  }

  @Test func sendingToThisDevicesOwnNameOrIDWhenItsDaemonIsNotSeenSaysItIsThisDevice() {
    let book = R.book()
    let peers = R.peers([R.record("lab-b", R.labB, port: 2)], book: book)
    for query in ["me", "ME", String(R.me.hex.prefix(12))] {
      #expect {
        try R.endpoint(for: query, among: peers, book: book)
      } throws: { error in
        "\(error)".contains("'\(query)' is this device (me") && !"\(error)".contains("no nearby peer")
      }
    }
  }

  /// Found by review 13: another device advertising this device's own name was a new peer, and
  /// a send to this device's name went to it.
  @Test func anotherDeviceAdvertisingThisDevicesNameIsMarkedAndNotSentToByThatName() throws {
    let book = R.book()
    let peers = R.peers([R.record("me", R.mallory, port: 2), R.record("\u{41C}\u{435}", R.laptop, port: 3)], book: book)
    #expect(peers.count == 2 && peers.allSatisfy { $0.standing == .takesOwnName && !$0.isSelf }, "\(peers)")
    #expect {
      try R.endpoint(for: "me", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("is this device's own name") && "\(error)".contains("--to \(R.mallory.short)")
    }
    // By its ID it is reached, the certificate pinned to that ID.
    #expect(try R.endpoint(for: String(R.mallory.hex.prefix(8)), among: peers, book: book).expectedFingerprint == R.mallory)
    // This device's own record is itself, not a taker.
    #expect(R.peers([R.record("me", R.me)], book: book).first?.standing == .known)
  }

  /// Review 22: a key made so its ID starts as a known device's (`9708`, 5,818 tries) took
  /// `--to 9708` while that device was away. A prefix of a known device's ID means that device.
  @Test func anIDPrefixOfAKnownDeviceNeverSendsToAnotherThatStartsTheSame() throws {
    let vicky = Fingerprint(bytes: [0x97, 0x08, 0x1c, 0x2d] + Array(repeating: 0x11, count: 28))!
    let ground = Fingerprint(bytes: [0x97, 0x08, 0x1c, 0x2d] + Array(repeating: 0x22, count: 28))!
    let book = R.book(sentTo: ["vicky": vicky])
    let prefix = String(vicky.hex.prefix(8))
    let away = R.peers([R.record("mallory", ground, port: 2)], book: book)
    #expect {
      try R.endpoint(for: prefix, among: away, book: book)
    } throws: { error in
      "\(error)".contains("starts the ID of vicky") && "\(error)".contains("--to \(ground.short)")
    }
    // Both nearby: the known one, and only it.
    let both = R.peers([R.record("mallory", ground, port: 2), R.record("vicky", vicky, port: 3)], book: book)
    #expect(try R.endpoint(for: prefix, among: both, book: book).expectedFingerprint == vicky)
    // More of the other's ID than the two share reaches it; fewer than eight digits reach nobody.
    #expect(try R.endpoint(for: ground.short, among: away, book: book).expectedFingerprint == ground)
    #expect(throws: ShareError.self) { try R.endpoint(for: "9708", among: away, book: R.book()) }
  }

  // MARK: A record that copies a known device's ID (issue 11.5)

  @Test func aRecordCopyingAContactsIDIsListedApartAndNeverAsTheContact() throws {
    let book = R.book(contacts: ["lab-b": R.labB])
    let peers = R.peers([R.record("aaa-spoof", R.labB, port: 1), R.record("lab-b", R.labB, port: 2)], book: book)
    #expect(peers.count == 2)
    let spoof = try #require(peers.first { $0.name.unescaped == "aaa-spoof" })
    let contact = try #require(peers.first { $0.name.unescaped == "lab-b" })
    #expect(!spoof.trusted && spoof.standing == .claimsIDOf(["lab-b"]) && spoof.aliases.isEmpty)
    #expect(contact.trusted && contact.standing == .known && contact.aliases.isEmpty)
    #expect(contact.addresses.map(\.port) == [2])
  }

  @Test func aSendByTheCopysNameIsRefusedNamingBothNames() {
    let book = R.book(contacts: ["lab-b": R.labB])
    let peers = R.peers([R.record("aaa-spoof", R.labB, port: 1), R.record("lab-b", R.labB, port: 2)], book: book)
    #expect {
      try R.endpoint(for: "aaa-spoof", among: peers, book: book)
    } throws: { error in
      let text = "\(error)"
      return text.contains("aaa-spoof advertises the device ID") && text.contains("lab-b") && text.contains(R.labB.short)
    }
  }

  @Test func aSendByTheContactsNameTriesOnlyItsOwnRecords() throws {
    let book = R.book(contacts: ["lab-b": R.labB])
    let peers = R.peers([R.record("aaa-spoof", R.labB, port: 1), R.record("lab-b", R.labB, port: 2)], book: book)
    let endpoint = try R.endpoint(for: "lab-b", among: peers, book: book)
    #expect(endpoint.candidates.map(\.port) == [2])
    #expect(endpoint.rememberAs == "lab-b" && endpoint.expectedFingerprint == R.labB)
  }

  @Test func aSendByIDPrefixTriesEveryRecordClaimingItAndRemembersNoName() throws {
    let book = R.book(contacts: ["lab-b": R.labB])
    let peers = R.peers([R.record("aaa-spoof", R.labB, port: 1), R.record("lab-b", R.labB, port: 2)], book: book)
    let endpoint = try R.endpoint(for: "b0b0b0b0", among: peers, book: book)
    #expect(Set(endpoint.candidates.map(\.port)) == [1, 2])
    #expect(Set(endpoint.candidates.compactMap(\.advertisedAs)) == ["aaa-spoof", "lab-b"])
    #expect(endpoint.expectedFingerprint == R.labB && endpoint.rememberAs == nil)
  }

  @Test func aDeviceKnownByTwoNamesIsOnePeerUnderBoth() throws {
    let book = R.book(contacts: ["lab-b": R.labB], sentTo: ["lab-b2": R.labB])
    let peers = R.peers([R.record("lab-b", R.labB, port: 1), R.record("lab-b2", R.labB, port: 2)], book: book)
    let peer = try #require(peers.first)
    #expect(peers.count == 1 && peer.name.unescaped == "lab-b" && peer.aliases.map(\.unescaped) == ["lab-b2"] && peer.trusted)
    let endpoint = try R.endpoint(for: "lab-b2", among: peers, book: book)
    #expect(Set(endpoint.candidates.map(\.port)) == [1, 2] && endpoint.rememberAs == "lab-b2")
  }

  @Test func namesCompareAsDNSComparesThem() {
    let book = R.book(contacts: ["Lab-B": R.labB])
    #expect(book.standing(name: "lab-b", id: R.labB) == .known)
    #expect(book.standing(name: "LAB-B", id: R.mallory) == .nameKnownWith(R.labB))
    #expect(book.standing(name: "other", id: R.labB) == .claimsIDOf(["Lab-B"]))
    #expect(book.standing(name: "other", id: R.laptop) == .new)
    #expect(book.standing(name: "other", id: nil) == .new)
  }

  /// Found by an outside review: `bob‐dev` (U+2010 for the hyphen) was listed beside the known
  /// `bob-dev` as an ordinary new peer, in the numbered choice too.
  @Test func aLookAlikeOfAKnownNameIsUnverifiedAndNotSentTo() throws {
    let book = R.book(contacts: ["lab-b": R.labB])
    for lookalike in ["lab\u{2010}b", "lab\u{2011}b", "l\u{0430}b-b", "lab-b\u{200B}", "\u{FF4C}\u{FF41}\u{FF42}-\u{FF42}", "LAB\u{2013}B"]
    {
      #expect(book.standing(name: lookalike, id: R.mallory) == .looksLike("lab-b"), "\(lookalike.unicodeScalars.map(\.value))")
    }
    #expect(book.standing(name: "lab-c", id: R.mallory) == .new)
    #expect(book.standing(name: "lab\u{2010}b", id: R.labB) == .claimsIDOf(["lab-b"]), "its own ID under another name")
    let peers = R.peers([R.record("lab\u{2010}b", R.mallory, port: 9)], book: book)
    #expect(peers.first?.standing.isUnverifiedClaim == true)
    #expect(throws: ShareError.self) { try R.endpoint(for: "lab\u{2010}b", among: peers, book: book) }
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: R.labB, name: "lab-b"))
    #expect(contacts.contact(sharingNameWith: PeerText("LAB\u{2010}B"), other: R.mallory)?.id == R.labB)
    #expect(contacts.contact(sharingNameWith: PeerText("lab-c"), other: R.mallory) == nil)
  }

  /// Review 41: a record claiming an ID that only starts with a contact's 12 digits (as share
  /// shows IDs) was listed with the contact's short ID, unmarked.
  @Test func anIDThatOnlyStartsAsAKnownDevicesIsUnverified() throws {
    let book = R.book(contacts: ["lab-b": R.labB])
    let copy = try #require(Fingerprint(bytes: Array(R.labB.bytes.prefix(6)) + Array(repeating: 0xEE, count: 26)))
    #expect(copy.short == R.labB.short && copy != R.labB)
    #expect(book.standing(name: "lab-phone", id: copy) == .idLooksLike("lab-b"))
    #expect(book.standing(name: "lab-phone", id: R.mallory) == .new)
    let peers = R.peers([R.record("lab-phone", copy, port: 9)], book: book)
    #expect(peers.first?.standing.isUnverifiedClaim == true)
    #expect {
      try R.endpoint(for: "lab-phone", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("starts as lab-b's does")
    }
  }

  /// Review 18: a stranger calling itself `bob-desk` beside the contact `bob-desk` is advertised
  /// by its Avahi as `bob-desk #2` (the name is taken on the link), which no look-alike check
  /// caught: it was listed and offered as an ordinary new peer.
  @Test func aContactsNameWithAvahisCollisionNumberIsUnverifiedUnlessTheContactsOwnID() throws {
    let book = R.book(contacts: ["bob-desk": R.labB])
    for numbered in ["bob-desk #2", "bob-desk #17", "BOB-DESK #3", "bob\u{2010}desk #2"] {
      #expect(book.standing(name: numbered, id: R.mallory) == .looksLike("bob-desk"), "\(numbered)")
    }
    // The contact itself, renamed because another took its name first.
    #expect(book.standing(name: "bob-desk #2", id: R.labB) == .known)
    // This device's name, numbered, on another device.
    #expect(book.standing(name: "me #2", id: R.mallory) == .takesOwnName)
    let peers = R.peers([R.record("bob-desk #2", R.mallory, port: 9)], book: book)
    #expect(peers.first?.standing.isUnverifiedClaim == true)
    #expect(throws: ShareError.self) { try R.endpoint(for: nil, among: peers, book: book) }
    // Named for the number, not for look-alike characters (review 32).
    #expect {
      try R.endpoint(for: "bob-desk #2", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("is bob-desk with the number Avahi adds when a name is already taken") && !"\(error)".contains("look-alike")
    }
    for (one, other) in [("Room #2", "Room #3"), ("bob-desk#2", "bob-desk"), ("bob-desk #2x", "bob-desk")] {
      #expect(!KnownIdentities.looksAlike(one, other), "\(one) / \(other)")
    }
    // A lone `#` after a blank is no number, but a separator: a decoration.
    #expect(KnownIdentities.looksAlike("bob-desk #", "bob-desk"))
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: R.labB, name: "bob-desk"))
    #expect(contacts.identify(R.mallory, calling: PeerText("bob-desk #2")).posedAs == "bob-desk")
    #expect(contacts.identify(R.labB, calling: PeerText("server")).contactName == "bob-desk")
  }

  /// Review 23: a stranger called `alice (60a2fb7ce8a2)` — the contact's name and short ID, as
  /// share shows them — was marked nowhere: not in `share requests`, the log, `share peers`.
  @Test func aContactsNameWithABracketedPartIsAPose() throws {
    let book = R.book(contacts: ["alice": R.labB])
    for decorated in [
      "alice (60a2fb7ce8a2)", "alice(60a2)", "Alice (calls itself bob)", "alice \u{FF08}x\u{FF09}", "alice [x] (y)",
      // Review 24: what follows the bracket does not matter (an invisible variation selector),
      // nor which bracket it is (ornate parentheses, whose categories Unicode swapped; angle
      // quotes; a parenthesis hook, a math symbol), nor whether it closes.
      "alice (60a2fb7ce8a2)\u{FE0F}", "alice \u{FD3E}x\u{FD3F}", "alice \u{2039}x\u{203A}", "alice \u{239B}x\u{239E}", "alice (x",
      "alice (x) y",
      // Review 24's lows: ASCII angle brackets (math symbols), a separator after a blank, a
      // bare ID after a blank, a parenthesized digit (drawn as `(1)`).
      "alice <99683decfbf2>", "alice - 99683decfbf2", "alice \u{2014} x", "alice | x", "alice :: x", "alice \u{00B7} x",
      "alice 99683decfbf2", "alice-99683decfbf2", "alice\u{2474}", "alice \u{FF1C}x\u{FF1E}", "alice -",
    ] {
      #expect(book.standing(name: decorated, id: R.mallory) == .looksLike("alice"), "\(decorated)")
    }
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: R.labB, name: "alice"))
    #expect(contacts.identify(R.mallory, calling: PeerText("alice (60a2fb7ce8a2)")).posedAs == "alice")
    for (one, other) in [
      ("alice-x)", "alice"), ("alicex (y)", "alice"), ("Bob\u{2019}s MacBook", "Bob"),
      ("alice-dev", "alice"), ("alice laptop", "alice"), ("alice cafe", "alice"), ("alice-cafe", "alice"),
      // Review 42: a number after a blank is a second device's name (`laptop 2`), not a look-alike.
      ("alice 2", "alice"), ("alice-pc 2", "alice-pc"), ("laptop-2", "laptop"),
    ] {
      #expect(!KnownIdentities.looksAlike(one, other), "\(one) / \(other)")
    }
    // Review 41: the same letters and digits with other punctuation or blanks around or between
    // them look alike.
    for (one, other) in [
      ("(alice)", "alice"), ("alice-pc.", "alice-pc"), ("alice-pc-", "alice-pc"), ("alice-pc_", "alice-pc"),
      ("alice-pc\u{2026}", "alice-pc"), ("alice pc", "alice-pc"), ("alice.pc", "alice-pc"), ("alicepc", "alice-pc"),
      ("alice-pc!", "alice-pc"),
    ] {
      #expect(KnownIdentities.looksAlike(one, other), "\(one) / \(other)")
    }
    #expect(!KnownIdentities.looksAlike("Room 2", "Room 3") && !KnownIdentities.looksAlike("lab-1", "lab-11"))
    // With the contact away, `--to alice` marks the record and does not suggest it.
    let peers = R.peers([R.record("alice (60a2fb7ce8a2)", R.mallory, port: 9)], book: book)
    #expect {
      try R.endpoint(for: "alic", among: peers, book: book)
    } throws: { error in
      "\(error)".contains("(unverified)") && !"\(error)".contains("did you mean")
    }
    #expect(KnownIdentities.withoutDecoration("alice") == nil)
    #expect(KnownIdentities.withoutDecoration("alice (a) (b)") == "alice")
  }

  /// Found by outside review 9 and a code review: blanks at the ends, capital Cyrillic and Greek
  /// letters, dotless i, Latin alpha, small capitals, dash-like symbols and digits for letters.
  @Test func lookAlikesOfEveryKindLookTheSame() {
    let pairs: [(String, String)] = [
      ("alice-dev ", "alice-dev"), ("alice-dev\u{00A0}", "alice-dev"), (" alice-dev", "alice-dev"),
      ("alice  dev", "alice dev"), ("al\u{0131}ce-dev", "alice-dev"), ("\u{0251}lice-dev", "alice-dev"),
      ("alice\u{02D7}dev", "alice-dev"), ("alice\u{2043}dev", "alice-dev"), ("a1ice-dev", "alice-dev"),
      ("\u{0422}\u{041E}\u{0420}", "top"), ("\u{0412}\u{041E}\u{0412}", "BOB"), ("Iab-b", "lab-b"),
      ("b\u{1D0F}b-dev", "bob-dev"), ("\u{041D}\u{041E}\u{041C}\u{0415}-\u{0420}\u{0421}", "HOME-PC"), ("b0b", "bob"),
      // Review 13: the braille blank, and letters Unicode's confusables data knows (Armenian,
      // Cherokee, a Lao digit) that the hand-made table did not.
      ("peer-a\u{2800}", "peer-a"), ("\u{2800}bob", "bob"), ("b\u{0585}b", "bob"), ("\u{13CF}ob", "bob"),
      ("b\u{0ED0}b", "bob"),
      // Review 16: a capital I is drawn like l and is also i's capital; both hold.
      ("Ivan", "ivan"), ("Ivan", "lvan"), ("MIKE", "mike"), ("IVAN", "ivan"),
      // Review 22: a mark on a Latin letter (a combining dot on i is drawn as i's own dot), the
      // Ogham space mark, and lines and strokes drawn as a dash.
      ("ali\u{307}ce-send", "alice-send"), ("alice-se\u{331}nd", "alice-send"), ("a\u{335}lice", "alice"),
      ("Jos\u{E9}", "jose"), ("\u{130}van", "ivan"), ("alice\u{1680}send", "alice-send"),
      ("alice\u{2500}send", "alice-send"), ("alice\u{30FC}send", "alice-send"), ("alice\u{4E00}send", "alice-send"),
      ("alice\u{3161}send", "alice-send"),
    ]
    for (lookalike, name) in pairs {
      #expect(KnownIdentities.looksAlike(lookalike, name), "\(lookalike.unicodeScalars.map(\.value))")
    }
    for (one, other) in [
      ("lab-b", "lab-c"), ("alice", "alicia"), ("Борис", "Boris"), ("ivan", "lvan"),
      // Marks on other scripts are their writing: a vowel sign is a different name.
      ("\u{0928}\u{092E}\u{0938}\u{094D}\u{0924}\u{0947}", "\u{0928}\u{092E}\u{0938}\u{094D}\u{0924}"),
    ] {
      #expect(!KnownIdentities.looksAlike(one, other), "\(one) / \(other)")
    }
    // Review 41: a blank for a dash, or none at all, is the same name to a reader.
    #expect(KnownIdentities.looksAlike("bob dev", "bobdev") && KnownIdentities.looksAlike("alice send", "alice-send"))
  }

  /// Found by an outside review: a LocalSend announcement of a pinned share device's name took
  /// `share send --to NAME` (its alias was matched first). A known share device's name, a name
  /// that looks like it, or a prefix of its ID is never taken for a LocalSend device.
  @Test func aKnownShareDeviceIsNeverTakenForALocalSendAnnouncement() {
    let book = R.book(contacts: ["lab-b": R.labB], sentTo: ["laptop": R.laptop, "localsend:phone": R.mallory])
    for target in ["lab-b", "LAB-B", "lab\u{2010}b", "laptop", String(R.labB.hex.prefix(8)), String(R.laptop.hex.prefix(8))] {
      #expect(book.knowsShareDevice(target), "\(target)")
    }
    for target in ["phone", "lab-c", String(R.mallory.hex.prefix(8)), "abc"] {
      #expect(!book.knowsShareDevice(target), "\(target)")
    }
  }

  @Test func anotherDeviceCalledLikeThisHomeAndACopyOfThisHomesIDAreBothMarked() {
    let book = R.book()
    #expect(book.standing(name: "me", id: R.labB) == .takesOwnName)
    #expect(book.standing(name: "ME", id: R.labB) == .takesOwnName)
    #expect(book.standing(name: "me-too", id: R.labB) == .new)
    // Even when this home once remembered the name for that device (review 14).
    #expect(R.book(sentTo: ["me": R.labB]).standing(name: "me", id: R.labB) == .takesOwnName)
    #expect(book.standing(name: "me", id: R.me) == .known)
    #expect(book.standing(name: "not-me", id: R.me) == .claimsIDOf(["me"]))
  }

  // MARK: Addresses and remembering

  @Test func addressesNeedNoDiscoveryAndAreNotRemembered() throws {
    let home = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-resolver-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let paths = SharePaths(home: home)
    let device = try Device.load(paths: paths, name: "alice")
    let resolver = PeerResolver(device: device, contacts: Contacts(paths: paths))
    let endpoints = try resolver.resolve(
      ["127.0.0.1:4000", "[::1]:4001"], warn: { _ in }, choose: { _, _ in throw ShareError.cancelled("no choice") })
    #expect(endpoints.map(\.address) == ["127.0.0.1:4000", "[::1]:4001"])
    #expect(endpoints.allSatisfy { $0.expectedFingerprint == nil && $0.rememberAs == nil })
  }

  @Test func theEscapedSpellingSharePeersShowsChoosesThePeerAndIsNeverSilentlyAnother() throws {
    let book = R.book()
    let real = "lab\u{202E}b"  // a right-to-left override: shown escaped
    let pasted = #"lab\u{202E}b"#
    let peers = R.peers([R.record(real, R.labB), R.record("laptop", R.laptop, port: 2)], book: book)
    #expect(peers.first { $0.id == R.labB }?.name.description == pasted)
    let endpoint = try R.endpoint(for: pasted, among: peers, book: book)
    #expect(endpoint.expectedFingerprint == R.labB && endpoint.rememberAs == real)
    // A device literally called what the other's name is shown as: the pasted text names both.
    let catcher = R.peers([R.record(real, R.labB), R.record(pasted, R.mallory, port: 2)], book: book)
    #expect {
      try R.endpoint(for: pasted, among: catcher, book: book)
    } throws: { error in
      Set((error as? R.Ambiguous)?.peers.compactMap(\.id) ?? []) == [R.labB, R.mallory]
    }
  }

  /// Review 16: a contact named here `alice` that advertises itself as `alice-laptop` could not
  /// be sent to by either name. Its name here goes by its ID: every record claiming it is tried,
  /// and the certificate decides.
  @Test func aContactsNameHereReachesItUnderTheNameItAdvertises() throws {
    let book = R.book(contacts: ["alice": R.labB])
    let peers = R.peers(
      [R.record("alice-laptop", R.labB), R.record("copy", R.labB, port: 2, interface: 2), R.record("laptop", R.laptop, port: 3)],
      book: book)
    let endpoint = try R.endpoint(for: "alice", among: peers, book: book)
    #expect(endpoint.expectedFingerprint == R.labB && endpoint.candidates.count == 2 && endpoint.rememberAs == nil)
    #expect(throws: ShareError.self) { try R.endpoint(for: "alicia", among: peers, book: book) }
  }

  /// Review 18: a contact named otherwise here (`srv`) was listed only as `server-01 (contact)`.
  @Test func aContactNamedOtherwiseHereIsListedWithItsNameHere() {
    let book = R.book(contacts: ["srv": R.labB, "lab-c": R.laptop], sentTo: ["server-01": R.labB])
    let peers = R.peers([R.record("server-01", R.labB), R.record("lab-c", R.laptop, port: 2)], book: book)
    #expect(peers.map(\.contactName) == [nil, "srv"] && peers.allSatisfy(\.trusted), "\(peers.map(\.name))")
  }

  @Test func byIDPrefixANameIsRememberedOnlyWhenTheReceiverItselfGivesIt() throws {
    let home = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-resolver-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let paths = SharePaths(home: home)
    let resolver = PeerResolver(device: try Device.load(paths: paths, name: "alice"), contacts: Contacts(paths: paths))
    func report(_ endpoint: Endpoint, hello: PeerText, advertised: PeerText) -> Result<SendReport, ShareError> {
      .success(
        SendReport(
          endpoint: endpoint, peerName: hello, peerFingerprint: R.labB, address: "192.0.2.1:1", advertisedAs: advertised,
          answers: [], items: []))
    }
    let byID = Endpoint(candidates: [.init(host: "192.0.2.1", port: 1, advertisedAs: "x")], label: "b0b0", expectedFingerprint: R.labB)
    resolver.remember(
      [byID, byID], [report(byID, hello: "lab-b", advertised: "aaa-spoof"), report(byID, hello: "lab-b2", advertised: "lab-b2")])
    let known = resolver.contacts.remembered().0
    #expect(known.id(for: "aaa-spoof") == nil)
    #expect(known.id(for: "lab-b2") == R.labB)
  }
}
