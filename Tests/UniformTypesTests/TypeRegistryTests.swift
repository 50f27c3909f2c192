import Foundation
import Testing

@testable import UniformTypes

@Suite("Type registry")
struct TypeRegistryTests {
  let registry = TypeRegistry.system()
  let builtins = TypeRegistry.builtinOnly

  @Test("every built-in parent is itself declared, and the graph reaches public.item")
  func builtinGraphIsClosed() {
    for declaration in BuiltinTypes.all {
      for parent in declaration.conformsTo {
        #expect(builtins.declaration(for: parent) != nil, "\(declaration.identifier) → \(parent)")
      }
      #expect(builtins.conforms(declaration.identifier, to: .item), "\(declaration.identifier)")
      #expect(declaration.identifier.isReverseDNS)
    }
  }

  @Test("the issue's required identifiers are all built in")
  func requiredIdentifiersExist() {
    let required: [TypeIdentifier] = [
      "public.item", "public.content", "public.data", "public.folder", "public.text", "public.plain-text",
      "public.utf8-plain-text", "public.html", "public.xml", "public.json", "public.source-code", "public.script",
      "public.shell-script", "public.python-script", "public.image", "public.jpeg", "public.png", "public.heic",
      "public.tiff", "com.compuserve.gif", "public.svg-image", "com.adobe.pdf", "public.audiovisual-content",
      "public.movie", "public.mpeg-4", "public.audio", "public.mp3", "public.archive", "public.zip-archive",
      "org.gnu.gnu-zip-archive", "public.tar-archive", "public.executable", "public.unix-executable",
      "com.microsoft.windows-executable", "public.url", "public.vcard", "org.freedesktop.desktop-entry",
      "org.debian.deb-archive", "com.redhat.rpm-archive", "org.appimage.appimage",
    ]
    for id in required { #expect(builtins.declaration(for: id)?.origin == .builtin, "\(id)") }
  }

  @Test("public.jpeg's ancestors come nearest first: image, then data and content, then item")
  func ancestorsAreBreadthFirst() {
    #expect(builtins.ancestors(of: "public.jpeg") == ["public.image", "public.data", "public.content", "public.item"])
    #expect(builtins.conforms("public.jpeg", to: .image))
    #expect(!builtins.conforms("public.jpeg", to: .text))
    #expect(!builtins.conforms(.image, to: "public.jpeg"))
    #expect(builtins.conforms("public.python-script", to: .plainText))
    #expect(builtins.conforms("org.openxmlformats.wordprocessingml.document", to: .zipArchive))
    #expect(builtins.conforms(.appImage, to: .executable) && builtins.conforms(.appImage, to: .installerPackage))
  }

  @Test(
    "file names map to types by their last extension, case-insensitively",
    arguments: [
      ("photo.JPG", "public.jpeg"), ("a.b.png", "public.png"), ("backup.tar.gz", "org.gnu.gnu-zip-tar-archive"),
      ("x.TGZ", "org.gnu.gnu-zip-tar-archive"), ("notes.txt.gz", "org.gnu.gnu-zip-archive"),
      ("evil.desktop. ", "org.freedesktop.desktop-entry"), ("dir/sub/file.pdf", "com.adobe.pdf"),
      ("C:\\Users\\x\\setup.EXE", "com.microsoft.windows-executable"), ("report.docx", "org.openxmlformats.wordprocessingml.document"),
      ("Tool.AppImage", "org.appimage.appimage"), ("photo.png.desktop", "org.freedesktop.desktop-entry"),
      ("", "public.data"), ("...", "public.data"), (".png", "public.data"), ("noext", "public.data"),
      ("weird.zzzzqq", "public.data"),
    ] as [(String, String)])
  func filenameTypes(name: String, expected: String) {
    #expect(builtins.type(forFilename: name) == TypeIdentifier(expected))
  }

  @Test("MIME types resolve through tags and aliases, ignoring case and parameters")
  func mimeTypes() {
    #expect(registry.type(forMIMEType: "image/png") == "public.png")
    #expect(registry.type(forMIMEType: "IMAGE/PNG; q=1") == "public.png")
    #expect(registry.type(forMIMEType: "application/x-debian-package") == "org.debian.deb-archive")
    // An alias only shared-mime-info knows: application/bzip2 → application/x-bzip.
    #expect(registry.type(forMIMEType: "application/bzip2") == "public.bzip2-archive")
    #expect(registry.type(forMIMEType: "not a mime type") == .data)
    #expect(registry.type(forMIMEType: "application/x-share-test-unknown") == "dyn.mime.application/x-share-test-unknown")
  }

  @Test("a MIME type without an identifier gets a dynamic one that conforms as its media type says")
  func dynamicTypes() throws {
    let xcf = registry.type(forFilename: "layers.xcf")
    #expect(xcf == "dyn.mime.image/x-xcf")
    #expect(registry.conforms(xcf, to: .image))
    let declaration = try #require(registry.declaration(for: xcf))
    #expect(declaration.origin.kind == .sharedMimeInfo)
    #expect(declaration.filenameExtensions.contains("xcf"))
    #expect(registry.conforms("dyn.mime.text/x-share-test", to: .plainText))
    #expect(registry.conforms("dyn.mime.audio/x-share-test", to: .audio))
    #expect(registry.conforms("dyn.mime.video/x-share-test", to: .movie))
    #expect(registry.conforms("dyn.mime.application/x-share-test+xml", to: .xml))
    #expect(registry.parents(of: "dyn.mime.application/x-share-test") == [.data])
    #expect(registry.declaration(for: "dyn.mime.application/x-share-test")?.origin.kind == .dynamic)
    // A dynamic identifier for a MIME type that has a declared type is that type.
    #expect(registry.canonicalIdentifier("dyn.mime.image/png") == "public.png")
    #expect(registry.canonicalIdentifier("com.example.unknown") == nil)
  }

  @Test("shared-mime-info's interpreted programs become scripts, and its sub-class-of chains are followed")
  func sharedMimeInfoSubclasses() {
    let lua = registry.type(forFilename: "init.lua")
    #expect(lua == "dyn.mime.text/x-lua")
    #expect(registry.conforms(lua, to: .script))
    // application/x-compressed-tar is sub-class-of application/gzip, so .tar.gz-like names
    // that only shared-mime-info knows still land under the gzip archive.
    #expect(registry.conforms("dyn.mime.application/x-bzip-compressed-tar", to: "public.bzip2-archive"))
    // Literal names: Makefile is text.
    #expect(registry.conforms(registry.type(forFilename: "Makefile"), to: .plainText))
  }

  /// Review 28: X11 bitmap fonts and LZ4/LZMA/LZO/compress tars, ARJ and `ar` were "Other files",
  /// refused by an Inbox of listed kinds that takes `.tar.zst`.
  @Test("fonts and archives no declaration names are fonts and archives")
  func undeclaredFontsAndArchives() {
    for name in ["10x20.pcf", "10x20.bdf", "font.spd"] {
      #expect(registry.conforms(registry.type(forFilename: name), to: .font), "\(name)")
    }
    for name in ["t.tar.lz4", "t.tar.lzma", "t.tar.lzo", "t.tar.Z", "a.arj", "lib.a", "x.lha", "x.lz4"] {
      #expect(registry.conforms(registry.type(forFilename: name), to: .archive), "\(name)")
    }
    #expect(!registry.conforms(registry.type(forFilename: "x.shar"), to: .archive), "a shell archive is a script")
    #expect(registry.conforms(registry.type(forFilename: "App.vue"), to: .sourceCode))
  }

  @Test("without shared-mime-info only built-in tags are known")
  func missingDatabase() {
    let bare = TypeRegistry.system(mimeDirectory: URL(fileURLWithPath: "/nonexistent/mime"))
    #expect(!bare.hasSharedMimeInfo)
    #expect(bare.type(forFilename: "layers.xcf") == .data)
    #expect(bare.type(forFilename: "photo.png") == "public.png")
  }

  @Test("a hand-written database with malformed lines and a sub-class cycle loads, and lookups terminate")
  func malformedDatabase() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("share-mime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try """
    # comment
    50:application/x-loop-a:*.loopa
    garbage line
    50:nonsense:*.bad
    :::
    60:text/x-special:*.SPC:cs
    40:application/x-core-test:core-test
    30:application/x-numbered:*.v[0-9]

    """.write(to: directory.appendingPathComponent("globs2"), atomically: true, encoding: .utf8)
    try """
    application/x-loop-a application/x-loop-b
    application/x-loop-b application/x-loop-a
    one-field
    """.write(to: directory.appendingPathComponent("subclasses"), atomically: true, encoding: .utf8)
    try "application/x-alias-test application/x-loop-a\n".write(
      to: directory.appendingPathComponent("aliases"), atomically: true, encoding: .utf8)
    let custom = TypeRegistry.system(mimeDirectory: directory)
    let loop = custom.type(forFilename: "x.loopa")
    #expect(loop == "dyn.mime.application/x-loop-a")
    #expect(custom.conforms(loop, to: "dyn.mime.application/x-loop-b"))
    #expect(!custom.conforms(loop, to: .image))
    #expect(custom.ancestors(of: loop).count <= 3)
    #expect(custom.type(forMIMEType: "application/x-alias-test") == loop)
    #expect(custom.type(forFilename: "x.SPC") == "dyn.mime.text/x-special")
    #expect(custom.type(forFilename: "x.spc") == .data)
    #expect(custom.type(forFilename: "core-test") == "dyn.mime.application/x-core-test")
    #expect(custom.type(forFilename: "x.v7") == "dyn.mime.application/x-numbered")
    #expect(custom.type(forFilename: "x.bad") == .data)
  }

  @Test("a type only shared-mime-info knows is described by its English comment, not by its MIME type")
  func sharedMimeInfoComments() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("share-mime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("text"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try "50:text/vnd.graphviz:*.gv\n50:text/x-nocomment:*.nocomment\n".write(
      to: directory.appendingPathComponent("globs2"), atomically: true, encoding: .utf8)
    try """
    <?xml version="1.0" encoding="utf-8"?>
    <mime-type xmlns="http://www.freedesktop.org/standards/shared-mime-info" type="text/vnd.graphviz">
      <comment xml:lang="de">Graphviz-DOT-Graph</comment>
      <comment>Graphviz DOT graph &amp; more</comment>
    </mime-type>
    """.write(to: directory.appendingPathComponent("text/vnd.graphviz.xml"), atomically: true, encoding: .utf8)
    let custom = TypeRegistry.system(mimeDirectory: directory)
    #expect(custom.describe(custom.type(forFilename: "g.gv")) == "Graphviz DOT graph & more")
    #expect(custom.describe(custom.type(forFilename: "x.nocomment")) == "text/x-nocomment")
    #expect(custom.describe("dyn.mime.text/x-unknown") == "text/x-unknown")
  }

  @Test("hostile names never crash and still classify by their real last extension")
  func hostileNames() {
    let long = String(repeating: "a", count: 100_000) + ".png"
    #expect(registry.type(forFilename: long) == "public.png")
    #expect(registry.type(forFilename: String(repeating: ".", count: 50_000)) == .data)
    #expect(registry.type(forFilename: "evil\u{1B}[2J\u{0}.sh") == .shellScript)
    #expect(registry.type(forFilename: "invoice\u{202E}fdp.desktop") == .desktopEntry)
    #expect(registry.type(forFilename: "x.\u{FFFF}\u{10FFFF}") == .data)
    #expect(registry.type(forFilename: "\u{0}") == .data)
  }

  @Test("added declarations resolve their own tags and take precedence over built-in ones")
  func addingDeclarations() throws {
    let note = TypeDeclaration(
      identifier: "com.example.note", description: "Note", conformsTo: [.plainText], filenameExtensions: ["note", "txt"],
      mimeTypes: ["text/x-example-note"], origin: TypeOrigin(kind: .declarations, source: "test"))
    let added = try builtins.adding([note])
    #expect(added.type(forFilename: "a.note") == "com.example.note")
    #expect(added.type(forFilename: "a.txt") == "com.example.note")
    #expect(added.type(forMIMEType: "text/x-example-note") == "com.example.note")
    #expect(added.conforms("com.example.note", to: .text))
    #expect(builtins.type(forFilename: "a.note") == .data, "the original registry is unchanged")
  }

  @Test(
    "invalid additions are refused with the offending index and problem",
    arguments: [
      ([TypeDeclaration(identifier: "note", description: "", conformsTo: [.data])], 0, "invalid"),
      ([TypeDeclaration(identifier: "public.png", description: "", conformsTo: [.data])], 0, "already"),
      ([TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: [])], 0, "no parent"),
      ([TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: ["com.x.missing"])], 0, "unknown parent"),
      (
        [
          TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: ["com.x.b"]),
          TypeDeclaration(identifier: "com.x.b", description: "", conformsTo: ["com.x.a"]),
        ], 0, "cycle"
      ),
      (
        [
          TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: [.data]),
          TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: [.data]),
        ], 1, "duplicate"
      ),
      ([TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: [.data], filenameExtensions: ["a/b"])], 0, "extension"),
      (
        [
          TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: [.data], filenameExtensions: ["abc"]),
          TypeDeclaration(identifier: "com.x.b", description: "", conformsTo: [.data], filenameExtensions: ["abc"]),
        ], 1, "claimed"
      ),
    ] as [([TypeDeclaration], Int, String)])
  func invalidAdditions(additions: [TypeDeclaration], index: Int, problem: String) {
    #expect {
      _ = try builtins.adding(additions)
    } throws: { error in
      guard let error = error as? TypeRegistryError else { return false }
      let matches: Bool
      switch (problem, error.problem) {
      case ("invalid", .invalidIdentifier), ("already", .alreadyDeclared), ("no parent", .noParent),
        ("unknown parent", .unknownParent), ("cycle", .cycle), ("duplicate", .duplicate), ("extension", .invalidExtension),
        ("claimed", .extensionClaimedTwice):
        matches = true
      default:
        matches = false
      }
      return matches && error.index == index
    }
  }

  @Test("a self-loop is reported as a cycle naming the type twice")
  func selfCycle() {
    #expect {
      _ = try builtins.adding([TypeDeclaration(identifier: "com.x.a", description: "", conformsTo: ["com.x.a"])])
    } throws: { error in
      (error as? TypeRegistryError)?.problem == .cycle(["com.x.a", "com.x.a"])
    }
  }

  @Test("reverse-DNS validation accepts labels of letters, digits and hyphens only")
  func reverseDNS() {
    for good in ["public.png", "com.example.note", "org.7-zip.7-zip-archive", "a.b"] {
      #expect(TypeIdentifier(good).isReverseDNS, "\(good)")
    }
    for bad in ["png", "", ".a.b", "a..b", "a.b.", "a b.c", "a/b.c", "dyn.mime.image/png", "é.fr", "a_b.c"] {
      #expect(!TypeIdentifier(bad).isReverseDNS, "\(bad)")
    }
  }

  @Test("identifiers compare case-insensitively and encode as plain strings")
  func identifierCoding() throws {
    #expect(TypeIdentifier("Public.JPEG") == "public.jpeg")
    let data = try JSONEncoder().encode(["public.png" as TypeIdentifier])
    #expect(String(decoding: data, as: UTF8.self) == "[\"public.png\"]")
    #expect(try JSONDecoder().decode([TypeIdentifier].self, from: data) == ["public.png"])
  }

  @Test("one registry answers from many tasks at once with the same results")
  func concurrentLookups() async {
    let registry = self.registry
    let results = await withTaskGroup(of: [TypeIdentifier].self) { group in
      for _ in 0..<8 {
        group.addTask {
          (0..<200).map { i in registry.type(forFilename: i % 2 == 0 ? "a.png" : "b.tar.gz") }
        }
      }
      var all: [[TypeIdentifier]] = []
      for await result in group { all.append(result) }
      return all
    }
    #expect(Set(results.map { $0 }).count == 1)
  }
}
