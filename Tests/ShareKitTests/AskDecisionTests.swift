import InboxStore
import Testing
import UniformTypes
import Wire

@testable import ShareKit

/// The one policy of the receive path, as values: every refusal reason, the budget and the free
/// space in offer order, folder entries, types by name, resume offsets and the answer the sender
/// sees. No socket, no disk.
@Suite struct AskDecisionTests {
  /// Images, folders, links and plain text accepted; executables and scripts excluded.
  static let types: Result<TypeGate, any Error> = Result {
    let registry = TypeRegistry.builtinOnly
    let declarations = Declarations(
      documentTypes: [
        DocumentType(name: "Images", contentTypes: [.image]), DocumentType(name: "Folders", contentTypes: [.folder]),
        DocumentType(name: "Links", contentTypes: [.url]), DocumentType(name: "Text", contentTypes: [.plainText]),
      ],
      excludedTypes: [.executable, .script], source: "test")
    return TypeGate(
      policy: try TypePolicy(registry: registry, declarations: declarations), registry: registry,
      sniffer: try ContentSniffer(), source: "test")
  }

  func typed(maxItemBytes: Int64 = 1 << 40, maxAskBytes: Int64 = 1 << 42) throws -> ReceivePolicy {
    ReceivePolicy(maxItemBytes: maxItemBytes, maxAskBytes: maxAskBytes, types: try Self.types.get())
  }

  func decide(
    _ items: [ItemOffer], policy: ReceivePolicy = ReceivePolicy(), space: AskDecision.Space? = nil
  ) throws -> AskDecision {
    AskDecision(try Ask(items: items).validate(limits: .default), policy: policy, space: space)
  }

  func file(_ id: Int, _ name: String, _ size: Int64?, key: String? = nil) -> ItemOffer {
    ItemOffer(id: id, kind: .file, name: PeerText(name), size: size, resumeKey: key)
  }

  func folder(_ id: Int, _ name: String, _ entries: [EntryOffer]?, size: Int64? = nil) -> ItemOffer {
    ItemOffer(id: id, kind: .folder, name: PeerText(name), size: size ?? entries?.reduce(0) { $0 + $1.size }, entries: entries)
  }

  func refusal(_ decision: AskDecision, _ id: Int) -> ItemRefusal? {
    decision.refused.first { $0.offer.id == id }?.refusal
  }

  func plan(_ decision: AskDecision, _ id: Int) -> ItemPlan? {
    decision.accepted.first { $0.offer.id == id }
  }

  // MARK: Every reason an item is refused

  @Test func namesThatCannotBecomeInboxNamesAreRefusedAsUnsafe() throws {
    let cases: [(String, InboxName.Problem)] = [
      ("", .empty), ("  ", .empty), (".", .dotName), ("..", .dotName),
      ("a/b", .pathSeparator), ("../x", .pathSeparator), ("x\0y", .nul),
    ]
    let decision = try decide(cases.enumerated().map { file($0.offset, $0.element.0, 1) })
    for (index, (name, problem)) in cases.enumerated() {
      #expect(refusal(decision, index) == .unsafeName(problem), "\(name.debugDescription)")
      #expect(decision.answer.items[index].reason?.unescaped == "unsafe name: \(problem)")
      #expect(decision.answer.items[index].type == nil)
    }
    #expect(decision.accepted.isEmpty)
  }

  @Test func aFolderWithoutItsEntriesIsRefused() throws {
    let decision = try decide([folder(0, "d", nil)])
    #expect(refusal(decision, 0) == .folderWithoutEntries)
    #expect(decision.answer.items[0].reason == "a folder without its entries")
  }

  @Test func urlAndTextItemsOverTheInlineLimitOrOfUnknownSizeAreRefused() throws {
    let limit = ReceivePolicy.maxInlineBytes
    let decision = try decide([
      ItemOffer(id: 0, kind: .url, name: "u", size: limit + 1), ItemOffer(id: 1, kind: .text, name: "t", size: nil),
      ItemOffer(id: 2, kind: .text, name: "t", size: limit),
    ])
    #expect(refusal(decision, 0) == .inlineTooLarge(.url, limit: limit))
    #expect(decision.answer.items[0].reason == "a url item is limited to 1.0 MiB")
    #expect(refusal(decision, 1) == .inlineTooLarge(.text, limit: limit))
    #expect(decision.answer.items[1].reason == "a text item is limited to 1.0 MiB")
    #expect(plan(decision, 2) != nil)
  }

  @Test func anItemOverTheItemLimitIsRefusedAndOneAtTheLimitIsNot() throws {
    let decision = try decide(
      [file(0, "big", 101), file(1, "fits", 100), file(2, "unknown", nil)], policy: ReceivePolicy(maxItemBytes: 100))
    #expect(refusal(decision, 0) == .tooLarge(size: 101, limit: 100))
    #expect(decision.answer.items[0].reason == "too large: 101 bytes is over this receiver's limit of 100 bytes")
    #expect(plan(decision, 1) != nil)
    // An unknown size is bounded while its bytes arrive, not here.
    #expect(plan(decision, 2) != nil)
  }

  @Test func theTypeRulesRefuseByNameWithTheirVerdict() throws {
    let decision = try decide([file(0, "setup.sh", 10), file(1, "movie.mp4", 10), file(2, "photo.png", 10)], policy: try typed())
    guard case .type(let excluded) = refusal(decision, 0), case .type(let uncovered) = refusal(decision, 1) else {
      Issue.record("expected type refusals: \(decision.refused)")
      return
    }
    #expect(excluded.rule == .excludedName && excluded.type == .shellScript && excluded.stage == .name)
    #expect(uncovered.rule == .notAccepted)
    // The answer carries the verdict's own sentence and its type, as a string only there.
    #expect(decision.answer.items[0].reason?.unescaped == excluded.reason)
    #expect(decision.answer.items[0].type == "public.shell-script")
    #expect(decision.refused.first?.type == .shellScript)
    #expect(plan(decision, 2)?.type == "public.png")
  }

  @Test func aFolderNoneOfWhoseFilesIsAcceptedIsRefused() throws {
    let entries = [
      EntryOffer(path: "a.sh", kind: .file, size: 1), EntryOffer(path: "sub", kind: .folder, size: 0),
      EntryOffer(path: "sub/b.sh", kind: .file, size: 1),
    ]
    let decision = try decide(
      [folder(0, "scripts", entries), folder(1, "empty", [EntryOffer(path: "sub", kind: .folder, size: 0)])], policy: try typed())
    #expect(refusal(decision, 0) == .noFileAccepted(offered: 2))
    #expect(decision.answer.items[0].reason == "none of its 2 files is accepted")
    #expect(decision.answer.items[0].type == "public.folder")
    // A folder of folders offers no file to refuse: it is taken.
    #expect(plan(decision, 1) != nil)
  }

  /// Review 19: `share requests` showed a folder by the size its sender gave it, never by how
  /// many files would come.
  @Test func anAskedFolderIsShownByWhatItsAcceptedEntriesBring() throws {
    let entries = [
      EntryOffer(path: "a.png", kind: .file, size: 3 << 20), EntryOffer(path: "sub", kind: .folder, size: 0),
      EntryOffer(path: "sub/b.png", kind: .file, size: 2 << 20), EntryOffer(path: "run.sh", kind: .file, size: 7),
    ]
    let decision = try decide([folder(0, "photos", entries), file(1, "c.png", 9)], policy: try typed())
    let asked = decision.askedItems(types: nil)
    #expect(asked[0].size == 5 << 20 && asked[0].files == 2)
    #expect(asked[1].size == 9 && asked[1].files == nil)
    #expect(decision.expectedBytes == (5 << 20) + 9)
  }

  @Test func theAskBudgetRefusesFromTheFirstItemOverItAndEverythingAfter() throws {
    let decision = try decide(
      [file(0, "a", 100), file(1, "b", 100), file(2, "c", 10), file(3, "d", nil)], policy: ReceivePolicy(maxAskBytes: 150))
    #expect(plan(decision, 0) != nil)
    #expect(refusal(decision, 1) == .overAskLimit(150))
    // What went over stays counted, so even a small item after it is refused.
    #expect(refusal(decision, 2) == .overAskLimit(150))
    #expect(refusal(decision, 3) == .overAskLimit(150))
    #expect(decision.answer.items[1].reason == "the offer is over this receiver's limit of 150 bytes per send")
    #expect(decision.answer.items[1].type == nil)
  }

  /// Review 19: an accepted folder of 19,940 empty files ("0 bytes") left 41 files free on the
  /// disk; nothing else could be created there.
  @Test func itemsThatWouldEatTheFilesReserveAreRefusedLikeBytes() throws {
    let empties = (0..<30).map { EntryOffer(path: PeerText("e\($0).txt"), kind: .file, size: 0) }
    let space = AskDecision.Space(free: 1 << 30, reserve: 0, freeFiles: 40, filesReserve: 5)
    let decision = try decide(
      [folder(0, "empty", empties), folder(1, "more", Array(empties.prefix(4))), file(2, "a.txt", 0), file(3, "b.txt", 0)],
      policy: try typed(), space: space)
    #expect(plan(decision, 0) != nil)  // 31 of the 35 files that may be made
    #expect(refusal(decision, 1) == .noFiles(reserve: 5))
    #expect(plan(decision, 2) != nil && plan(decision, 3) != nil)
    #expect(decision.answer.items[1].reason?.unescaped.contains("too few more files") == true)
    #expect(AskDecision.Space.filesReserve(total: 20_000) == 1_000 && AskDecision.Space.filesReserve(total: 1 << 24) == 10_000)
  }

  @Test func itemsThatWouldEatTheReserveAreRefusedInOfferOrderAndSmallerOnesStillFit() throws {
    let space = AskDecision.Space(free: 1000, reserve: 300)
    let decision = try decide(
      [file(0, "a.png", 500), file(1, "b.png", 400), file(2, "c.png", 200), file(3, "d.png", nil)],
      policy: try typed(), space: space)
    #expect(plan(decision, 0) != nil)
    #expect(refusal(decision, 1) == .noSpace(reserve: 300))
    #expect(plan(decision, 2) != nil)
    #expect(plan(decision, 3) != nil)
    #expect(decision.answer.items[1].reason == "not enough free space on the receiver (it keeps 300 bytes free)")
    // The type decided from the name is still reported.
    #expect(decision.answer.items[1].type == "public.png")
    // Unknown free space: nothing is refused for it.
    #expect(try decide([file(0, "a", 1 << 40)]).refused.isEmpty)
    // A reserve larger than the disk refuses even one byte.
    let full = try decide([file(0, "a", 1)], space: AskDecision.Space(free: 10, reserve: 64 << 20))
    #expect(refusal(full, 0) == .noSpace(reserve: 64 << 20))
  }

  @Test func aDeclinedAskRefusesEveryAcceptedItemWithTheOwnersReasonAndKeepsEarlierReasons() throws {
    var decision = try decide([file(0, "photo.png", 1), file(1, "setup.sh", 1)], policy: try typed())
    let declined = decision.decline("the owner declined")
    #expect(declined.map(\.offer.id) == [0])
    #expect(refusal(decision, 0) == .declined("the owner declined"))
    #expect(decision.answer.items[0].reason == "the owner declined")
    #expect(decision.answer.items[0].type == "public.png")
    #expect(decision.answer.items[1].reason?.unescaped.hasPrefix("rejected:") == true)
    #expect(decision.accepted.isEmpty && decision.expectedBytes == 0)
  }

  // MARK: Every reason a folder entry is refused

  /// Review 17: a folder's `.git/config` ran the sender's command (`core.fsmonitor`) at the next
  /// `git status` in it, and a folder item called `.git` made the whole Inbox a work tree.
  @Test func versionControlFoldersAreRefusedUnderAnyNameGitFindsThem() throws {
    func entry(_ path: String, folder: Bool = false) -> EntryOffer {
      EntryOffer(path: PeerText(path), kind: folder ? .folder : .file, size: folder ? 0 : 1)
    }
    let entries = [
      entry("README.txt"), entry(".git", folder: true), entry(".git/config"), entry(".git/HEAD"),
      entry("sub", folder: true), entry("sub/.GIT"), entry("sub/.hg", folder: true), entry("sub/.hg/hgrc"),
      // A bare repository under another name: git finds it when run inside it.
      entry("bare", folder: true), entry("bare/HEAD"), entry("bare/config"), entry("bare/objects", folder: true),
      entry("bare/refs", folder: true), entry("bare/refs/heads", folder: true), entry("bare/notes.txt"),
      // Only part of that layout is no repository.
      entry("almost", folder: true), entry("almost/HEAD"), entry("almost/refs", folder: true),
    ]
    let decision = try decide([folder(0, "repo", entries), folder(1, ".git", [entry("config")]), file(2, ".Git", 1)])
    let plan = try #require(self.plan(decision, 0))
    let refused = zip(entries, plan.entries).filter { $0.1 == .refused(.versionControl) }.map(\.0.path.unescaped)
    #expect(
      refused == [
        ".git", ".git/config", ".git/HEAD", "sub/.GIT", "sub/.hg", "sub/.hg/hgrc", "bare/HEAD", "bare/config",
        "bare/objects", "bare/refs", "bare/refs/heads", "bare/notes.txt",
      ], "\(refused)")
    #expect(plan.entries[0] == .file(["README.txt"]) && plan.entries[17] == .folder(["almost", "refs"]))
    #expect(refusal(decision, 1) == .versionControl && refusal(decision, 2) == .versionControl)
    #expect(decision.answer.items[1].reason?.unescaped.hasPrefix("a version-control folder") == true)
    // A whole bare repository sent as the item.
    let bare = try decide([folder(0, "project.git", [entry("HEAD"), entry("objects", folder: true), entry("refs", folder: true)])])
    #expect(refusal(bare, 0) == .noFileAccepted(offered: 1))
  }

  /// Review 37: git also takes a folder with `HEAD` and a `commondir` file (naming where the
  /// objects, refs and configuration are) for a git directory; and items `HEAD`, `objects/`
  /// and `refs/` (or `commondir`) sent one by one would make the Inbox itself one.
  @Test func aGitDirectoryLaidOutThroughCommondirAndAHEADItemAreRefused() throws {
    func entry(_ path: String, folder: Bool = false) -> EntryOffer {
      EntryOffer(path: PeerText(path), kind: folder ? .folder : .file, size: folder ? 0 : 1)
    }
    let entries = [
      entry("readme.txt"), entry("p", folder: true), entry("p/HEAD"), entry("p/commondir"), entry("p/docs", folder: true),
      entry("p/docs/a.txt"), entry("other", folder: true), entry("other/commondir"),
    ]
    let whole = [entry("HEAD"), entry("commondir"), entry("docs", folder: true), entry("docs/a.txt")]
    let decision = try decide([
      folder(0, "Project", entries), file(1, "HEAD", 1), file(2, "commondir", 1), folder(3, "HEAD", []), folder(4, "Wt", whole),
    ])
    let plan = try #require(self.plan(decision, 0))
    let refused = zip(entries, plan.entries).filter { $0.1 == .refused(.versionControl) }.map(\.0.path.unescaped)
    #expect(refused == ["p/HEAD", "p/commondir", "p/docs", "p/docs/a.txt"], "\(refused)")
    #expect(refusal(decision, 4) == .noFileAccepted(offered: 3))
    #expect(refusal(decision, 1) == .versionControl)
    #expect(refusal(decision, 2) != .versionControl && refusal(decision, 3) != .versionControl)
  }

  /// Review 37: macOS takes a folder named `*.pkg` or `*.mpkg` for a bundle installer package,
  /// which needs nothing refused on its own inside to install; such a folder is refused whole,
  /// as an item and as an entry of a folder, as a file of the name is.
  @Test func aBundleInstallerPackageFolderIsRefusedWhole() throws {
    func entry(_ path: String, folder: Bool = false) -> EntryOffer {
      EntryOffer(path: PeerText(path), kind: folder ? .folder : .file, size: folder ? 0 : 1)
    }
    let bundle = [entry("Contents", folder: true), entry("Contents/PkgInfo"), entry("Contents/Archive.pax.gz")]
    let entries = [
      entry("readme.txt"), entry("Tools.MPKG", folder: true), entry("Tools.MPKG/Contents", folder: true),
      entry("Tools.MPKG/Contents/Info.plist"), entry("Tools.MPKG/Contents/Packages", folder: true),
      entry("Tools.MPKG/Contents/Packages/a.pkg", folder: true), entry("Tools.MPKG/Contents/Packages/a.pkg/x.txt"),
      entry("pkg", folder: true), entry("pkg/b.txt"),
    ]
    let decision = try decide(
      [folder(0, "Setup.pkg", bundle), folder(1, "Downloads", entries), folder(2, "Setup.pkg.d", bundle)], policy: try typed())
    let item = try #require(refusal(decision, 0)).reason
    #expect(item.contains("installer packages") && item.contains("(folder Setup.pkg)"), "\(item)")
    let plan = try #require(self.plan(decision, 1))
    let refused = zip(entries, plan.entries).compactMap { entry, fate -> String? in
      guard case .refused(.type(let verdict)) = fate else { return nil }
      #expect(verdict.reason.contains("installer packages (folder Tools.MPKG)"), "\(verdict.reason)")
      return entry.path.unescaped
    }
    #expect(refused == entries[1...6].map(\.path.unescaped), "\(refused)")
    #expect(plan.entries[0] == .file(["readme.txt"]) && plan.entries[8] == .file(["pkg", "b.txt"]))
    #expect(self.plan(decision, 2) != nil)
  }

  @Test func folderEntriesAreRefusedOneByOneAndTheFolderSaysHowManyItTakes() throws {
    let entries = [
      EntryOffer(path: "ok.png", kind: .file, size: 5),
      EntryOffer(path: "../escape.png", kind: .file, size: 1),
      EntryOffer(path: "/abs.png", kind: .file, size: 1),
      EntryOffer(path: "ok.png", kind: .file, size: 1),
      EntryOffer(path: "link", kind: .url, size: 1),
      EntryOffer(path: "huge.png", kind: .file, size: 1000),
      EntryOffer(path: "run.sh", kind: .file, size: 1),
      EntryOffer(path: "sub", kind: .folder, size: 0),
      EntryOffer(path: "sub/in.png", kind: .file, size: 7),
    ]
    // Of unknown size as a whole (a known one is the sum of its entries': over the limit here),
    // so that each entry meets the limit on its own.
    let album = ItemOffer(id: 0, kind: .folder, name: "album", size: nil, entries: entries)
    let decision = try decide([album], policy: try typed(maxItemBytes: 999))
    let plan = try #require(self.plan(decision, 0))
    #expect(plan.entries[0] == .file(["ok.png"]))
    #expect(plan.entries[1] == .refused(.unsafePath(.dotName)))
    #expect(plan.entries[2] == .refused(.unsafePath(.pathSeparator)))
    #expect(plan.entries[3] == .refused(.duplicatePath))
    #expect(plan.entries[4] == .refused(.notFileOrFolder))
    #expect(plan.entries[5] == .refused(.tooLarge(size: 1000, limit: 999)))
    guard case .refused(.type(let verdict)) = plan.entries[6] else {
      Issue.record("expected a type refusal: \(plan.entries[6])")
      return
    }
    #expect(verdict.rule == .excludedName)
    #expect(plan.entries[7] == .folder(["sub"]))
    #expect(plan.entries[8] == .file(["sub", "in.png"]))

    let answer = decision.answer.items[0]
    #expect(answer.accepted && answer.reason == "accepted 2 of its 7 files")
    #expect(answer.entries?.map(\.accepted) == [true, false, false, false, false, false, false, true, true])
    #expect(answer.entries?[1].reason == "unsafe path: the name is \".\" or \"..\"")
    #expect(answer.entries?[3].reason == "another entry has the same path")
    #expect(answer.entries?[4].reason == "a folder holds only files and folders")
    #expect(answer.entries?[5].reason == "too large: 1000 bytes is over this receiver's limit of 999 bytes")
    #expect(answer.entries?[6].reason?.unescaped == verdict.reason)
    // Only the accepted entries count against the budget and the free space.
    #expect(plan.acceptedBytes == 12)
    #expect(plan.refusedEntries == 6)
  }

  @Test func aFolderWhoseEntriesAreAllTakenReportsItsTypeVerdict() throws {
    let decision = try decide([folder(0, "album", [EntryOffer(path: "a.png", kind: .file, size: 1)])], policy: try typed())
    let verdict = try #require(plan(decision, 0)?.verdict)
    #expect(verdict.accepted && verdict.type == .folder && verdict.decidedBy == "Folders")
    #expect(decision.answer.items[0].reason?.unescaped == verdict.reason)
    #expect(try decide([folder(0, "d", [])]).answer.items[0].reason == "accepted")
  }

  // MARK: What is accepted

  @Test func urlAndTextItemsAreStoredUnderTheirExtensionAndAcceptedItemsNeedNoReason() throws {
    let decision = try decide(
      [
        ItemOffer(id: 0, kind: .url, name: "example.org", size: 20), ItemOffer(id: 1, kind: .text, name: "note", size: 5),
        file(2, " spaced.png ", 3),
      ], policy: try typed())
    #expect(decision.accepted.map(\.storedName) == ["example.org.url", "note.txt", "spaced.png"])
    #expect(decision.answer.items.allSatisfy { $0.accepted && $0.reason == nil && $0.offset == 0 && $0.entries == nil })
    #expect(decision.answer.items.map(\.type) == ["public.url", "public.utf8-plain-text", "public.png"])
  }

  @Test func withoutTypeRulesEverythingNamedSafelyIsTakenUntyped() throws {
    let decision = try decide([file(0, "a.sh", 1), file(1, "b", nil)])
    #expect(decision.refused.isEmpty)
    #expect(decision.accepted.allSatisfy { $0.verdict == nil && $0.type == nil })
    #expect(decision.answer.items.allSatisfy { $0.type == nil })
  }

  // MARK: Resume

  @Test func onlyLargeFilesWithAResumeKeyMayResumeAndTheirOffsetReachesTheAnswer() throws {
    let big = AskDecision.resumableBytes
    var decision = try decide([
      file(0, "big.bin", big, key: "k0"), file(1, "small.bin", big - 1, key: "k1"), file(2, "nokey.bin", big),
      file(3, "stream", nil, key: "k3"), folder(4, "d", [EntryOffer(path: "f", kind: .file, size: big)]),
    ])
    let candidates = decision.resumable(senderId: "sender")
    #expect(candidates.map(\.id) == [0])
    let record = try #require(candidates.first?.record)
    #expect(record == ResumeRecord(senderId: "sender", resumeKey: "k0", name: "big.bin", size: big, updatedAt: record.updatedAt))

    #expect(decision.expectedBytes == 4 * big - 1)
    decision.resume(0, record: record, offset: 4096)
    #expect(plan(decision, 0)?.resume == record && plan(decision, 0)?.offset == 4096)
    #expect(decision.answer.items[0].offset == 4096)
    #expect(decision.expectedBytes == 4 * big - 1 - 4096)
  }

  /// Review 31: a file cut off on a nearly full disk could not resume though its rest fitted:
  /// the space check counted the whole file while its held part was on the disk already.
  @Test func onlyTheRestOfAFileStagingHoldsMustFit() throws {
    let big = AskDecision.resumableBytes
    let items = [file(0, "big.bin", 4 * big, key: "k0"), file(1, "other.bin", 4 * big, key: "k1")]
    let ask = try Ask(items: items).validate(limits: .default)
    let space = AskDecision.Space(free: 5 * big, reserve: 2 * big)
    // Without the held part, the first does not fit (5 - 4 < 2), nor the second.
    let whole = AskDecision(ask, policy: ReceivePolicy(), space: space)
    #expect(refusal(whole, 0) == .noSpace(reserve: 2 * big) && refusal(whole, 1) == .noSpace(reserve: 2 * big))
    // With 3 of its 4 held, its rest fits (5 - 1 ≥ 2); the other, held by nobody, still does not.
    let held = AskDecision(ask, policy: ReceivePolicy(), space: space) { $0.resumeKey == "k0" ? 3 * big : 0 }
    #expect(plan(held, 0) != nil)
    #expect(refusal(held, 1) == .noSpace(reserve: 2 * big))
    // A held count past the item's size is taken as the whole of it, never as more room.
    let lying = AskDecision(ask, policy: ReceivePolicy(), space: space) { $0.resumeKey == "k0" ? 100 * big : 0 }
    #expect(plan(lying, 0) != nil && refusal(lying, 1) == .noSpace(reserve: 2 * big))
  }

  @Test func aResumeOffsetOutsideTheItemCountsAsNone() throws {
    let big = AskDecision.resumableBytes
    var decision = try decide([file(0, "big.bin", big, key: "k")])
    let record = try #require(decision.resumable(senderId: "s").first?.record)
    for offset in [big, big + 1, -1] {
      decision.resume(0, record: record, offset: offset)
      #expect(plan(decision, 0)?.offset == 0, "\(offset)")
      #expect(plan(decision, 0)?.resume == record)
    }
  }

  /// Review 26: the prefixes of each entry were copied to look them up, the square of its depth;
  /// the tree of repository paths answers as that lookup did, and a deep path costs its depth.
  @Test func repositoryPrefixesAnswerAsEveryPrefixLookedUp() {
    var generator = SystemRandomNumberGenerator()
    let names = ["a", "b", "HEAD"]
    func path() -> [String] { (0..<Int.random(in: 0...4, using: &generator)).map { _ in names.randomElement(using: &generator)! } }
    for _ in 0..<500 {
      let repositories = Set((0..<Int.random(in: 0...3, using: &generator)).map { _ in path() })
      let prefixes = VersionControl.Prefixes(repositories)
      for _ in 0..<20 {
        let components = path()
        let expected = (0..<components.count).contains { repositories.contains(Array(components[..<$0])) }
        #expect(VersionControl.holds(components, repositories: prefixes) == expected, "\(components) in \(repositories)")
      }
    }
    let deep = (0..<2_040).map { "a\($0 % 7)" }
    #expect(!VersionControl.holds(deep, repositories: VersionControl.Prefixes([["b"]])))
    #expect(VersionControl.holds(deep, repositories: VersionControl.Prefixes([Array(deep.prefix(2_000))])))
  }
}
