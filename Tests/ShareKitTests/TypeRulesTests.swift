import Foundation
import InboxStore
import Synchronization
import Testing
import Wire

@testable import ShareKit

/// The receiver's type declarations decide what enters its Inbox, from names and from content.
@Suite struct TypeRulesTests {
  static let png: [UInt8] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2,
    0, 0, 0, 0x90, 0x77, 0x53, 0xDE, 0, 0, 0, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x08, 0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0, 0,
    0x03, 0x01, 0x01, 0x00, 0x18, 0xDD, 0x8D, 0xB0, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
  ]

  func elf() throws -> [UInt8] { Array(try #require(FileManager.default.contents(atPath: "/bin/true"))) }

  /// More items than one placement batch holds (512): each batch is synced and placed while the
  /// next one arrives. Every item's fate is in the Receipt, stored ones under the names the Inbox
  /// gave them (repeated names numbered across batches), content refusals from any batch kept out.
  @Test func itemsOfSeveralBatchesAreEachPlacedOrRefusedOnce() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    let elf = try elf()
    let count = 1_300
    var paths: [String] = []
    var refusedAt: Set<Int> = []
    for i in 0..<count {
      let folder = "d\(i)"
      if i % 97 == 5 {
        refusedAt.insert(i)
        paths.append(a.file("\(folder)/x-\(i).png", elf).path)
      } else {
        paths.append(a.file("\(folder)/\(i % 50 == 0 ? "same" : "f-\(i)").txt", Array("file \(i)".utf8)).path)
      }
    }
    let report = try Sender(device: a.device).send(try OutgoingItem.files(paths), to: receiver.endpoint)
    #expect(report.items.count == count)
    #expect(report.counts.stored == count - refusedAt.count)
    #expect(report.counts.refused == refusedAt.count)
    let names = report.items.compactMap { $0.storedAs?.unescaped }
    #expect(Set(names).count == names.count)
    #expect(Set(b.inboxNames()) == Set(names))
    #expect(names.filter { $0.hasPrefix("same") }.count == count / 50)
    for (i, item) in report.items.enumerated() where !refusedAt.contains(i) {
      let stored = try #require(item.storedAs?.unescaped)
      #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent(stored).path) == Data("file \(i)".utf8))
    }
    let listed = try InboxStore(documents: b.device.paths.documents).list()
    #expect(listed.count == names.count)
    #expect(listed.allSatisfy { $0.metadata?.sha256 != nil })
    #expect(b.stagingNames().isEmpty)
  }

  @Test func aPhotoIsStoredWhileAnELFNamedPngAndAScriptAreRefusedWithReasons() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    let items = try OutgoingItem.files([
      a.file("photo.png", TypeRulesTests.png).path, a.file("evil.png", try elf()).path,
      a.file("run.sh", Array("#!/bin/sh\necho hi\n".utf8)).path,
    ])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    let byName = Dictionary(uniqueKeysWithValues: zip(["photo.png", "evil.png", "run.sh"], report.items))
    #expect(byName["photo.png"]?.status == .stored)
    #expect(byName["photo.png"]?.type == "public.png")
    #expect(byName["evil.png"]?.status == .rejected)
    #expect(byName["evil.png"]?.reason?.unescaped.contains("Unix executable (ELF)") == true)
    #expect(byName["run.sh"]?.status == .rejected)
    #expect(byName["run.sh"]?.reason?.unescaped.contains("script") == true)
    // run.sh was refused from its name: the answer said so before any byte moved.
    #expect(report.answers.first { $0.id == 2 }?.accepted == false)
    #expect(b.inboxNames() == ["photo.png"])
    #expect(b.stagingNames().isEmpty)
    let stored = try InboxStore(documents: b.device.paths.documents).list()
    #expect(stored.first?.metadata?.type == "public.png")
  }

  @Test func onlyTheDaemonKeepsTheCutMagicDatabaseInItsHome() throws {
    let home = try TestHome()
    let file = home.device.paths.magicCutFile.path
    let binary = randomBytes(4096)
    // A command (share types check, send --dry-run) judges content without the file: it is
    // where the confined daemon may write, and such a command runs outside the confinement.
    _ = try TypeGate.load(paths: home.device.paths).judgeContent(name: "a.bin", kind: .file, head: binary, size: 4096)
    #expect(!FileManager.default.fileExists(atPath: file))
    _ = try TypeGate.load(paths: home.device.paths, keepsCutDatabase: true).judgeContent(
      name: "a.bin", kind: .file, head: binary, size: 4096)
    #expect(FileManager.default.fileExists(atPath: file))
  }

  @Test func aLargeItemRefusedOnItsFirstBytesStopsTheSenderEarly() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    // 64 MiB that start as an ELF, named like a video.
    let bytes = try elf() + randomBytes((64 << 20) - (try elf()).count)
    let items = try OutgoingItem.files([a.file("holiday.mp4", bytes).path, a.file("photo.png", TypeRulesTests.png).path])
    let sent = Mutex<Int64>(0)
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint) { event in
      if case .progress(let bytes, _) = event { sent.withLock { $0 = bytes } }
    }
    #expect(report.items[0].status == .rejected)
    #expect(report.items[0].reason?.unescaped.contains("executable") == true)
    #expect(report.items[1].status == .stored)
    #expect(sent.withLock { $0 } < 32 << 20, "the sender kept sending a refused item: \(sent.withLock { $0 }) bytes")
    #expect(b.inboxNames() == ["photo.png"])
  }

  /// Items from 2 MiB share the session's writer and its three buffers: a buffer one of them
  /// kept (a refused one's, say) would leave the next large item waiting for ever. Several large
  /// items in one send, one refused on its first bytes between them, all end, byte for byte.
  @Test(.timeLimit(.minutes(1))) func largeItemsInOneSendShareTheWriterAndARefusedOneLeavesItFree() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    let picture = { (size: Int) in TypeRulesTests.png + randomBytes(size - TypeRulesTests.png.count) }
    let contents = [picture(3 << 20), try elf() + randomBytes(3 << 20), picture((5 << 20) + 12_345), picture(2 << 20)]
    let names = ["a.png", "b.mp4", "c.png", "d.png"]
    let items = try OutgoingItem.files(zip(names, contents).map { try a.file($0, $1).path })
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items.map(\.status) == [.stored, .rejected, .stored, .stored])
    for index in [0, 2, 3] {
      let stored = try #require(report.items[index].storedAs?.unescaped)
      let data = FileManager.default.contents(atPath: b.inbox.appendingPathComponent(stored).path)
      #expect(data == Data(contents[index]), "\(names[index]) came out different")
    }
  }

  @Test func aTxtThatIsAShellScriptIsRefusedAsAScript() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    let items = try OutgoingItem.files([a.file("notes.txt", Array("#!/bin/bash\nrm -rf ~\n".utf8)).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items[0].status == .rejected)
    #expect(b.inboxNames().isEmpty)
  }

  /// Review finding: `--text` skipped the content checks, so a script sent as text was stored as
  /// `sh.txt` where the same bytes sent as a file were refused.
  @Test func aTextItemHoldingAScriptOrADesktopEntryIsRefusedAsTheSameFileIs() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    var catalog = ItemCatalog()
    catalog.add(text: "#!/bin/sh\nrm -rf \"$HOME\"\n", name: "sh")
    catalog.add(text: "[Desktop Entry]\nType=Application\nExec=evil\n", name: "x.desktop")
    catalog.add(text: "see you at 6\n", name: "note")
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)
    #expect(report.items.map(\.status) == [.rejected, .rejected, .stored])
    #expect(report.items[0].reason?.unescaped.contains("does not accept scripts: the text snippet is a shell script") == true)
    #expect(report.items[1].reason?.unescaped.contains("does not accept desktop entries: the text snippet is a desktop entry") == true)
    #expect(b.inboxNames() == ["note.txt"])
  }

  @Test func aHomesOwnDeclarationsImportATypeAndExcludeImages() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict>
        <key>CFBundleDocumentTypes</key>
        <array><dict><key>CFBundleTypeName</key><string>Everything</string>
          <key>LSItemContentTypes</key><array><string>public.data</string></array></dict></array>
        <key>UTImportedTypeDeclarations</key>
        <array><dict><key>UTTypeIdentifier</key><string>org.example.note</string>
          <key>UTTypeDescription</key><string>Note</string>
          <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
          <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>note</string></dict></dict></array>
        <key>ExcludedActivityTypes</key><array><string>public.image</string></array>
      </dict></plist>
      """
    try FileManager.default.createDirectory(at: b.device.paths.config, withIntermediateDirectories: true)
    try plist.write(to: b.device.paths.declarations, atomically: true, encoding: .utf8)
    let gate = try TypeGate.load(paths: b.device.paths)
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: gate))
    let items = try OutgoingItem.files([
      a.file("todo.note", Array("buy milk\n".utf8)).path, a.file("photo.png", TypeRulesTests.png).path,
    ])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items[0].status == .stored)
    #expect(report.items[0].type == "org.example.note")
    #expect(report.items[1].status == .rejected)
    #expect(b.inboxNames() == ["todo.note"])
  }

  @Test func malformedDeclarationsAreAClearErrorNamingTheKey() throws {
    let b = try TestHome()
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>
        <key>CFBundleDocumentTypes</key><array><dict><key>CFBundleTypeName</key><string>X</string>
          <key>LSItemContentTypes</key><string>public.image</string></dict></array>
        <key>UTExportedTypeDeclarations</key><array><dict><key>UTTypeIdentifier</key><string>org.example.x</string>
          <key>UTTypeConformsTo</key><integer>5</integer></dict></array>
      </dict></plist>
      """
    try FileManager.default.createDirectory(at: b.device.paths.config, withIntermediateDirectories: true)
    try plist.write(to: b.device.paths.declarations, atomically: true, encoding: .utf8)
    do {
      _ = try TypeGate.load(paths: b.device.paths)
      Issue.record("loaded malformed declarations")
    } catch {
      #expect(error.description.contains("UTTypeConformsTo") || error.description.contains("LSItemContentTypes"))
    }
  }

  @Test func theReceiversHelloSummarisesWhatItAccepts() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(types: try TypeGate.load(paths: b.device.paths)))
    let client = try RawClient(to: receiver.port, home: a)
    guard case .hello(let hello) = try client.hello() else {
      Issue.record("expected a Hello")
      return
    }
    let summary = try #require(hello.accepts)
    #expect(summary.documentTypes.flatMap(\.contentTypes).contains("public.image"))
    #expect(summary.excludedTypes.contains("public.executable"))
  }
}
