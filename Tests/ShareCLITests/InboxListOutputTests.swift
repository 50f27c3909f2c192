import Foundation
import InboxStore
import ShareKit
import Testing

@testable import ShareCLI

/// `share inbox list` writes its lines itself, in large chunks; its output is byte for byte what
/// the implementation it replaced printed: per item `JSONOutput.line(InboxItemOutput(item))` for
/// `--json`, and for scripts the tab-separated line spelled out below.
@Suite struct InboxListOutputTests {
  /// Names, senders and reasons that JSON and terminals must escape, and plain ones.
  static let hostile = [
    "plain.txt", "quote \" and back\\slash", "tab\there\nnew line\r", "bs\u{08}ff\u{0C}bell\u{07}\u{1B}[31m\u{7F}\u{85}\u{9F}",
    "é café 日本語 🎉", "\u{202E}gpj.exe", "zero\u{200B}width\u{2028}sep\u{2029}\u{FEFF}", "tag\u{E0001}x", "100% sure %20.txt",
    "slash/in reason", String(repeating: "long-", count: 45),
  ]

  /// An Inbox holding one item per hostile name (files and folders, every optional field, some
  /// received at the same second), enough plain items to cross a 64 KiB chunk, and one item
  /// without a record.
  func filledHome() throws -> ScratchHome {
    let home = ScratchHome()
    let store = try InboxStore(documents: home.url.appendingPathComponent("Documents"))
    var batch: [InboxStore.Placement] = []
    let names = InboxListOutputTests.hostile.filter { !$0.contains("/") } + (0..<400).map { "item-\($0).bin" }
    for (index, name) in names.enumerated() {
      let folder = index % 7 == 3
      let sender = InboxListOutputTests.hostile[index % InboxListOutputTests.hostile.count]
      var meta = ItemMetadata(
        originalName: PeerText(sender), kind: folder ? .folder : .file, senderName: PeerText(sender),
        senderId: String(repeating: "0123456789abcdef", count: 4),
        receivedAt: Date(timeIntervalSince1970: Double(1_764_558_000 + index % 50)),
        size: Int64(index * 1000), sha256: folder ? nil : String(repeating: "f", count: 64),
        type: index % 5 == 0 ? nil : TypeIdentifier(rawValue: "public.data"), files: folder ? 1 : nil,
        refusedEntries: folder ? [.init(path: PeerText(sender), reason: PeerText(name)), .init(path: "b", reason: "")] : nil)
      if index % 4 == 1 {
        meta.protocol = "localsend"
        meta.senderVerified = index % 8 == 1
      }
      batch.append(try stage(name, folder: folder, in: store, meta: meta))
    }
    #expect(store.place(batch).allSatisfy { (try? $0.get()) != nil })
    try Data("by hand".utf8).write(to: store.inbox.appendingPathComponent("unrecorded.txt"))
    return home
  }

  func stage(_ name: String, folder: Bool, in store: InboxStore, meta: ItemMetadata) throws -> InboxStore.Placement {
    if folder {
      let url = try store.createStagingFolder()
      try Data("x".utf8).write(to: url.appendingPathComponent("x"))
      return InboxStore.Placement(staged: url, name: name, identity: try store.seal(folder: url), metadata: meta)
    }
    let file = try store.createStagingFile()
    try Array(name.utf8).withUnsafeBytes { try file.write($0) }
    return InboxStore.Placement(staged: file.url, name: name, identity: try file.finish(sync: false), metadata: meta)
  }

  /// The line for scripts as the replaced implementation made it.
  func referenceLine(_ item: InboxItem) -> String {
    let when = item.metadata?.receivedAtText ?? "-"
    let type = item.metadata?.type?.rawValue ?? item.kind.rawValue
    // An ID the sender only claimed (LocalSend without a certificate) is marked so.
    let from =
      item.metadata.map {
        let id = escape(String($0.senderId.prefix(12)))
        return "\(escape($0.senderName.unescaped)) (\($0.senderVerified == false ? "unverified, claims \(id)" : id))"
      } ?? "unknown sender"
    return "\(escape(item.name))\t\(formatBytes(item.size))\t\(type)\t\(when)\t\(from)"
  }

  @Test func printsWhatTheEncoderAndTheOldLinesPrinted() throws {
    let home = try filledHome()
    defer { home.remove() }
    let items = try Inbox(paths: SharePaths(home: home.url)).list()
    #expect(items.count == 411)
    let inbox = home.url.appendingPathComponent("Documents/Inbox")
    for item in items {
      #expect(item.path == inbox.appendingPathComponent(item.name).path)
      #expect(item.url == URL(fileURLWithPath: item.path, isDirectory: item.kind == .folder))
    }
    let json = share(["inbox", "list", "--json"], environment: home.environment)
    #expect(json.code == .success && json.err.isEmpty, "\(json)")
    #expect(json.out.utf8.count > 65536, "the output crosses a chunk")
    let expectedJSON = items.map { JSONOutput.line(InboxItemOutput($0)) + "\n" }.joined()
    #expect(Array(json.out.utf8) == Array(expectedJSON.utf8))
    let text = share(["inbox", "list"], environment: home.environment)
    #expect(text.code == .success && text.err.isEmpty, "\(text)")
    #expect(Array(text.out.utf8) == Array(items.map { referenceLine($0) + "\n" }.joined().utf8))
  }

  /// Review 16: `share inbox list` said "1 bytes".
  @Test func aOneByteItemIsListedAsOneByte() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let store = try InboxStore(documents: home.url.appendingPathComponent("Documents"))
    for name in ["a", "bc"] {
      let meta = ItemMetadata(
        originalName: PeerText(name), kind: .file, senderName: "peer", senderId: String(repeating: "a", count: 64),
        receivedAt: Date(), size: Int64(name.utf8.count))
      #expect(store.place([try stage(name, folder: false, in: store, meta: meta)]).allSatisfy { (try? $0.get()) != nil })
    }
    let text = share(["inbox", "list"], environment: home.environment)
    #expect(text.code == .success, "\(text)")
    let fields = text.outLines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    let sizes = Dictionary(fields.filter { $0.count > 1 }.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
    #expect(sizes == ["a": "1 byte", "bc": "2 bytes"], "\(text)")
  }
}
