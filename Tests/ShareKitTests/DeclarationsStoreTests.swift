import Foundation
import Synchronization
import Testing
import UniformTypes
import Wire

@testable import ShareKit

/// The one writer of a home's `Declarations.plist`: edits start from the declarations in force,
/// are validated as the daemon reads them, replace the file atomically and durably under a lock,
/// and a failure leaves the file exactly as it was.
@Suite struct DeclarationsStoreTests {
  let home = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-declarations-\(UUID().uuidString)")
  var paths: SharePaths { SharePaths(home: home) }
  var store: DeclarationsStore { DeclarationsStore(paths: paths) }
  var file: URL { paths.declarations }

  /// Every file in the home's config folder, with its bytes.
  func snapshot() -> [String: Data] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: paths.config.path)) ?? []
    var files: [String: Data] = [:]
    for name in names { files[name] = FileManager.default.contents(atPath: paths.config.appendingPathComponent(name).path) }
    return files
  }

  @Test func theFirstEditStartsFromTheDefaultAndTheDaemonReadsTheResult() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    let change = try store.edit(.exclude, [".iso"])
    #expect(change.written && change.source == file.path && change.daemon == "not-told")
    #expect(change.types.map(\.type) == ["public.iso-image"] && change.types.first?.excludedBy == "public.iso-image")
    let written = try Declarations.load(from: file)
    #expect(written.excludedTypes == Declarations.builtinDefault.excludedTypes + ["public.iso-image"])
    #expect(written.documentTypes == Declarations.builtinDefault.documentTypes)
    // What the daemon loads (and reloads): the same path.
    let gate = try TypeGate.load(paths: paths, receiverName: "lab-b")
    #expect(gate.source == file.path)
    let verdict = gate.policy.judge(name: "big.iso", kind: .file)
    #expect(!verdict.accepted && verdict.reason == "lab-b does not accept ISO disk images (big.iso)")
    #expect(gate.acceptCommand(name: "big.iso", kind: .file) == "share types accept .iso")
    // Owner-only, and no temporary file left beside it.
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
    #expect(mode?.intValue == 0o600)
    #expect(Set(snapshot().keys) == ["Declarations.plist", "declarations.lock"], "\(snapshot().keys)")

    // forget brings the default's verdict back; reset removes the file.
    let forgotten = try store.edit(.forget, ["application/x-cd-image"])
    #expect(forgotten.written && forgotten.types.first?.acceptedBy == "Disk images")
    #expect(try Declarations.load(from: file).sameContent(as: .builtinDefault))
    let reset = try store.reset()
    #expect(reset.written && reset.source == "built-in default" && !FileManager.default.fileExists(atPath: file.path))
    #expect(try TypeGate.load(paths: paths).source == "built-in default")
    #expect(try !store.reset().written)
  }

  @Test func aRefusedEditWritesNothingAndSaysWhy() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    _ = try store.edit(.exclude, [".iso"])
    let before = snapshot()
    let refusals: [([String], DeclarationEdit.Action, String)] = [
      ([".img", ".exe"], .accept, "cannot accept Windows executables (.exe)"),
      ([".img", ".nobody-knows-this"], .exclude, "no type is known for the extension .nobody-knows-this"),
      (["public.imag"], .forget, "did you mean public.image?"),
    ]
    for (queries, action, words) in refusals {
      #expect {
        _ = try store.edit(action, queries)
      } throws: { error in
        "\(error)".contains(words)
      }
      #expect(snapshot() == before, "\(action) \(queries) changed the files")
    }
    // Nothing to change is not a write either.
    let same = try store.edit(.exclude, ["public.iso-image"])
    #expect(!same.written && same.types.first?.changes == [.alreadyExcluded])
    #expect(snapshot() == before)
  }

  @Test func aDamagedFileIsReportedNeverEditedAndResetRecovers() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try FileManager.default.createDirectory(at: paths.config, withIntermediateDirectories: true)
    let damaged = Data(
      "<plist version=\"1.0\"><dict><key>ExcludedActivityTypes</key><strin>public.executable</string></dict></plist>\n".utf8)
    try damaged.write(to: file)
    do {
      _ = try store.edit(.exclude, [".iso"])
      Issue.record("a damaged file must not be edited")
    } catch {
      let message = "\(error)"
      #expect(message.contains(file.path) && message.contains("not a valid property list"), "\(message)")
      #expect(message.contains("'share types reset'"), "\(message)")
    }
    #expect(FileManager.default.contents(atPath: file.path) == damaged)
    // A file that parses but names an unknown type is damaged too.
    let unknownType = Data(
      "<plist version=\"1.0\"><dict><key>ExcludedActivityTypes</key><string>public.nosuch</string></dict></plist>\n".utf8)
    try unknownType.write(to: file)
    #expect(throws: ShareError.self) { try store.edit(.accept, [".iso"]) }
    #expect(FileManager.default.contents(atPath: file.path) == unknownType)
    #expect(try store.reset().written)
    #expect(try store.edit(.exclude, [".iso"]).written)
  }

  @Test func replacingAHandWrittenFileSaysSoAndKeepsItsDeclarations() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    try FileManager.default.createDirectory(at: paths.config, withIntermediateDirectories: true)
    let hand = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>
        <!-- my own -->
        <key>UTExportedTypeDeclarations</key><array><dict>
          <key>UTTypeIdentifier</key><string>com.example.note</string>
          <key>UTTypeConformsTo</key><string>public.plain-text</string>
          <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>note</string></dict>
        </dict></array>
        <key>CFBundleDocumentTypes</key><array><dict>
          <key>CFBundleTypeName</key><string>Notes</string><key>CFBundleTypeRole</key><string>Viewer</string>
          <key>LSItemContentTypes</key><array><string>com.example.note</string></array>
        </dict></array>
      </dict></plist>
      """
    try Data(hand.utf8).write(to: file)
    // The file's own type can be named by its extension.
    let change = try store.edit(.accept, [".pdf"])
    #expect(change.written && change.replacedHandWritten)
    let written = try Declarations.load(from: file)
    #expect(written.exportedTypes.map(\.identifier) == ["com.example.note"])
    #expect(written.exportedTypes.first?.filenameExtensions == ["note"])
    #expect(written.documentTypes.map(\.name) == ["Notes", "PDF documents"])
    #expect(try !store.edit(.exclude, [".note"]).replacedHandWritten)
    #expect(try Declarations.load(from: file).excludedTypes == ["com.example.note"])
  }

  @Test func editsRacingFromManyWritersAllLand() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    // No one of these conforms to another (.iso would be "already excluded" after .img, in whichever order they ran).
    let types = [".iso", ".qcow2", ".dmg", ".ttf", ".otf", ".woff", ".epub", ".mobi", ".stl", ".ics", ".vcf", ".7z"]
    let failures = Mutex<[String]>([])
    let group = DispatchGroup()
    for type in types {
      group.enter()
      // Each writer is its own store value, as each process would be.
      let store = DeclarationsStore(paths: paths)
      Thread {
        defer { group.leave() }
        do { _ = try store.edit(.exclude, [type]) } catch { failures.withLock { $0.append("\(error)") } }
      }.start()
    }
    group.wait()
    #expect(failures.withLock { $0 }.isEmpty)
    let excluded = try Declarations.load(from: file).excludedTypes
    #expect(excluded.count == Declarations.builtinDefault.excludedTypes.count + types.count, "\(excluded)")
  }

  @Test func noDaemonIsFineTheNextStartReadsTheFile() throws {
    defer { try? FileManager.default.removeItem(at: home) }
    var change = try store.edit(.exclude, [".iso"])
    change.tellDaemon(paths: paths)
    #expect(change.daemon == "not-running" && change.daemonError == nil)
    var unchanged = try store.edit(.exclude, [".iso"])
    unchanged.tellDaemon(paths: paths)
    #expect(unchanged.daemon == "not-told")
  }
}
