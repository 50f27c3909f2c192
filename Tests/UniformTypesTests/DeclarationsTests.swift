import Foundation
import Testing

@testable import UniformTypes

/// Wraps plist body text in the XML header and `<plist>` element.
func plist(_ body: String) -> Data {
  Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>

    """.utf8)
}

/// A declaration dictionary.
func typeDeclaration(_ id: String, conformsTo: String, extra: String = "") -> String {
  """
  <dict>
    <key>UTTypeIdentifier</key><string>\(id)</string>
    <key>UTTypeConformsTo</key>\(conformsTo)
    \(extra)
  </dict>
  """
}

/// A case of a malformed declarations file and the error it must produce.
struct MalformedCase: Sendable, CustomTestStringConvertible {
  var label: String
  var data: Data
  var kind: DeclarationsError.Kind
  var keyPath: String
  var messageContains: String
  var line: Int? = nil
  var testDescription: String { label }
}

let malformedCases: [MalformedCase] = [
  MalformedCase(
    label: "conformance that is neither a string nor an array of strings",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.a", conformsTo: "<string>public.data</string>"))
      \(typeDeclaration("com.example.b", conformsTo: "<integer>7</integer>"))
      </array></dict>
      """), kind: .wrongType, keyPath: "UTExportedTypeDeclarations[1].UTTypeConformsTo",
    messageContains: "expected a string or an array of strings, found an integer"),
  MalformedCase(
    label: "an array element that is not a string",
    data: plist(
      """
      <dict><key>CFBundleDocumentTypes</key><array><dict>
      <key>CFBundleTypeName</key><string>Images</string>
      <key>LSItemContentTypes</key><array><string>public.image</string><true/></array>
      </dict></array></dict>
      """), kind: .wrongType, keyPath: "CFBundleDocumentTypes[0].LSItemContentTypes[1]",
    messageContains: "expected a string, found a boolean"),
  MalformedCase(
    label: "an unknown identifier in LSItemContentTypes",
    data: plist(
      """
      <dict><key>CFBundleDocumentTypes</key><array><dict>
      <key>CFBundleTypeName</key><string>Images</string>
      <key>LSItemContentTypes</key><array><string>public.png</string><string>public.imag</string></array>
      </dict></array></dict>
      """), kind: .unknownType, keyPath: "CFBundleDocumentTypes[0].LSItemContentTypes[1]",
    messageContains: "did you mean public.image?"),
  MalformedCase(
    label: "a declaration conforming to an undeclared type",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.note", conformsTo: "<array><string>public.data</string><string>com.example.missing</string></array>"))
      </array></dict>
      """), kind: .unknownType, keyPath: "UTExportedTypeDeclarations[0].UTTypeConformsTo[1]",
    messageContains: "undeclared type \"com.example.missing\""),
  MalformedCase(
    label: "a conformance cycle",
    data: plist(
      """
      <dict><key>UTImportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.a", conformsTo: "<string>com.example.b</string>"))
      \(typeDeclaration("com.example.b", conformsTo: "<string>com.example.a</string>"))
      </array></dict>
      """), kind: .cycle, keyPath: "UTImportedTypeDeclarations[0].UTTypeConformsTo",
    messageContains: "com.example.a → com.example.b → com.example.a"),
  MalformedCase(
    label: "a non-reverse-DNS identifier",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("note", conformsTo: "<string>public.plain-text</string>"))
      </array></dict>
      """), kind: .invalidIdentifier, keyPath: "UTExportedTypeDeclarations[0].UTTypeIdentifier",
    messageContains: "\"note\" is not a reverse-DNS identifier"),
  MalformedCase(
    label: "an invalid plist, with the line of the problem",
    data: plist(
      """
      <dict>
        <key>ExcludedActivityTypes</key>
        <array>
          <string>public.executable</strin>
        </array>
      </dict>
      """), kind: .invalidPlist, keyPath: "", messageContains: "</strin> does not match <string> opened on line 7", line: 7),
  MalformedCase(
    label: "a misspelt exclusion key",
    data: plist("<dict><key>ExcludedActivityType</key><array><string>public.executable</string></array></dict>"),
    kind: .unknownKey, keyPath: "ExcludedActivityType", messageContains: "did you mean ExcludedActivityTypes?"),
  MalformedCase(
    label: "a document type without a name",
    data: plist(
      """
      <dict><key>CFBundleDocumentTypes</key><array><dict>
      <key>LSItemContentTypes</key><array><string>public.image</string></array>
      </dict></array></dict>
      """), kind: .missingKey, keyPath: "CFBundleDocumentTypes[0].CFBundleTypeName", messageContains: "missing"),
  MalformedCase(
    label: "an extension written with its dot",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.note", conformsTo: "<string>public.plain-text</string>", extra: "<key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>note</string><string>.nt</string></array></dict>"))
      </array></dict>
      """), kind: .invalidValue, keyPath: "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[1]",
    messageContains: "starts with a dot; write \"nt\""),
  MalformedCase(
    label: "a malformed MIME type",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.note", conformsTo: "<string>public.plain-text</string>", extra: "<key>UTTypeTagSpecification</key><dict><key>public.mime-type</key><string>note</string></dict>"))
      </array></dict>
      """), kind: .invalidValue, keyPath: "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.mime-type",
    messageContains: "not a MIME type"),
  MalformedCase(
    label: "an exported redeclaration of a built-in type",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("public.png", conformsTo: "<string>public.data</string>"))
      </array></dict>
      """), kind: .conflict, keyPath: "UTExportedTypeDeclarations[0].UTTypeIdentifier", messageContains: "already declared (builtin)"),
  MalformedCase(
    label: "a type declared twice",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.note", conformsTo: "<string>public.data</string>"))
      </array><key>UTImportedTypeDeclarations</key><array>
      \(typeDeclaration("com.example.note", conformsTo: "<string>public.data</string>"))
      </array></dict>
      """), kind: .conflict, keyPath: "UTImportedTypeDeclarations[0].UTTypeIdentifier", messageContains: "declared twice"),
  MalformedCase(
    label: "extensions listed directly in a document type",
    data: plist(
      """
      <dict><key>CFBundleDocumentTypes</key><array><dict>
      <key>CFBundleTypeName</key><string>Notes</string>
      <key>CFBundleTypeExtensions</key><array><string>note</string></array>
      <key>LSItemContentTypes</key><array><string>public.plain-text</string></array>
      </dict></array></dict>
      """), kind: .unknownKey, keyPath: "CFBundleDocumentTypes[0].CFBundleTypeExtensions", messageContains: "UTTypeTagSpecification"),
  MalformedCase(
    label: "a document type that is not a dictionary",
    data: plist("<dict><key>CFBundleDocumentTypes</key><array><string>Images</string></array></dict>"),
    kind: .wrongType, keyPath: "CFBundleDocumentTypes[0]", messageContains: "expected a dictionary, found a string"),
  MalformedCase(
    label: "an empty LSItemContentTypes",
    data: plist(
      """
      <dict><key>CFBundleDocumentTypes</key><array><dict>
      <key>CFBundleTypeName</key><string>Nothing</string>
      <key>LSItemContentTypes</key><array/>
      </dict></array></dict>
      """), kind: .invalidValue, keyPath: "CFBundleDocumentTypes[0].LSItemContentTypes", messageContains: "at least one"),
  MalformedCase(
    label: "a declaration without UTTypeConformsTo",
    data: plist(
      """
      <dict><key>UTExportedTypeDeclarations</key><array><dict>
      <key>UTTypeIdentifier</key><string>com.example.note</string>
      </dict></array></dict>
      """), kind: .missingKey, keyPath: "UTExportedTypeDeclarations[0].UTTypeConformsTo", messageContains: "missing"),
  MalformedCase(
    label: "an unknown excluded identifier",
    data: plist("<dict><key>ExcludedActivityTypes</key><array><string>public.exectuable</string></array></dict>"),
    kind: .unknownType, keyPath: "ExcludedActivityTypes[0]", messageContains: "did you mean public.executable?"),
  MalformedCase(
    label: "a top level that is an array", data: plist("<array/>"), kind: .wrongType, keyPath: "",
    messageContains: "expected a dictionary"),
  MalformedCase(label: "an empty file", data: Data(), kind: .invalidPlist, keyPath: "", messageContains: "empty", line: 1),
  MalformedCase(
    label: "an unknown plist tag", data: plist("<dict>\n<key>A</key>\n<thing/>\n</dict>"), kind: .invalidPlist,
    keyPath: "", messageContains: "unknown tag <thing/>", line: 6),
]

@Suite("Declarations files")
struct DeclarationsTests {
  let registry = TypeRegistry.system()

  /// Parses and validates `data` as a home's declarations file would be.
  func policy(_ data: Data) throws(DeclarationsError) -> TypePolicy {
    try TypePolicy(registry: registry, declarations: Declarations.parse(data, source: "test.plist"))
  }

  @Test("a malformed file is an error naming the key path and what is wrong", arguments: malformedCases)
  func malformed(_ testCase: MalformedCase) {
    do {
      _ = try policy(testCase.data)
      Issue.record("no error for \(testCase.label)")
    } catch {
      #expect(error.kind == testCase.kind, "\(error)")
      #expect(error.keyPath == testCase.keyPath, "\(error)")
      #expect(error.message.contains(testCase.messageContains), "\(error)")
      #expect(error.source == "test.plist")
      if let line = testCase.line { #expect(error.line == line, "\(error)") }
      #expect(error.description.hasPrefix("test.plist"))
    }
  }

  @Test("the error text reads source, key path, message")
  func errorDescription() {
    let error = DeclarationsError(
      kind: .wrongType, source: "/home/a/Declarations.plist", keyPath: "UTExportedTypeDeclarations[1].UTTypeConformsTo",
      message: "expected a string or an array of strings, found an integer")
    #expect(
      error.description
        == "/home/a/Declarations.plist: UTExportedTypeDeclarations[1].UTTypeConformsTo: expected a string or an array of strings, found an integer"
    )
  }

  @Test("Inbox/Declarations.plist is byte for byte the built-in default")
  func shippedDefaultMatchesBuiltin() throws {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let file = repository.appendingPathComponent("Inbox").appendingPathComponent(Declarations.fileName)
    let shipped = try Data(contentsOf: file)
    #expect(shipped == Data(Declarations.defaultPlist.utf8))
    let loaded = try Declarations.load(from: file)
    #expect(loaded.documentTypes == Declarations.builtinDefault.documentTypes)
    #expect(loaded.excludedTypes == Declarations.builtinDefault.excludedTypes)
    #expect(loaded.source == file.path)
  }

  @Test("the default accepts media, documents, text, archives, links and folders, and excludes dangerous kinds")
  func defaultContents() throws {
    let policy = try TypePolicy(registry: registry, declarations: .builtinDefault)
    #expect(policy.warnings.isEmpty)
    for id: TypeIdentifier in [
      "public.png", "public.mp3", "public.mpeg-4", "com.adobe.pdf", "org.openxmlformats.wordprocessingml.document",
      "org.oasis-open.opendocument.spreadsheet", "com.microsoft.excel.xls", "public.plain-text", "public.utf8-plain-text",
      "public.zip-archive", "public.url", "public.folder",
    ] {
      #expect(policy.acceptance(of: id) != nil && policy.exclusion(of: id) == nil, "\(id)")
    }
    for id: TypeIdentifier in [
      "public.unix-executable", "com.microsoft.windows-executable", "public.shell-script", "public.python-script",
      "org.freedesktop.desktop-entry", "org.debian.deb-archive", "com.redhat.rpm-archive", "org.appimage.appimage",
      "com.android.package-archive", "com.microsoft.windows-installer", "org.flatpak.flatpakref", "io.snapcraft.snap",
      "public.run-installer", "com.sun.java-archive",
    ] {
      #expect(policy.exclusion(of: id) != nil, "\(id)")
    }
  }

  @Test("a missing file is unreadable, with the system's reason")
  func missingFile() {
    #expect {
      _ = try Declarations.load(from: URL(fileURLWithPath: "/nonexistent/Declarations.plist"))
    } throws: { error in
      guard let error = error as? DeclarationsError else { return false }
      return error.kind == .unreadable && error.message.contains("No such file")
    }
  }

  @Test("imported built-in types and accepted-but-excluded types are warnings, not errors")
  func warnings() throws {
    let policy = try policy(
      plist(
        """
        <dict>
        <key>UTImportedTypeDeclarations</key><array>
        \(typeDeclaration("public.png", conformsTo: "<string>public.image</string>"))
        </array>
        <key>CFBundleDocumentTypes</key><array><dict>
        <key>CFBundleTypeName</key><string>Scripts</string>
        <key>CFBundleTypeRole</key><string>Viewer</string>
        <key>LSItemContentTypes</key><array><string>public.shell-script</string></array>
        </dict></array>
        <key>ExcludedActivityTypes</key><string>public.script</string>
        </dict>
        """))
    #expect(policy.warnings.count == 2)
    #expect(policy.warnings.contains { $0.contains("built in") })
    #expect(policy.warnings.contains { $0.contains("will never be accepted") })
    #expect(!policy.judge(name: "a.sh", kind: .file).accepted)
  }

  @Test("dynamic MIME identifiers may be accepted and excluded")
  func dynamicIdentifiersInLists() throws {
    let policy = try policy(
      plist(
        """
        <dict>
        <key>CFBundleDocumentTypes</key><array><dict>
        <key>CFBundleTypeName</key><string>GIMP</string>
        <key>LSItemContentTypes</key><array><string>dyn.mime.image/x-xcf</string><string>dyn.mime.image/png</string></array>
        </dict></array>
        </dict>
        """))
    #expect(policy.judge(name: "layers.xcf", kind: .file).accepted)
    #expect(policy.accepted == ["dyn.mime.image/x-xcf", "public.png"])
  }

  @Test("tags may be a single string or an array, extensions are lower-cased, origins name the file")
  func tagForms() throws {
    let declarations = try Declarations.parse(
      plist(
        """
        <dict><key>UTExportedTypeDeclarations</key><array>
        \(typeDeclaration("com.example.note", conformsTo: "<string>public.plain-text</string>", extra: "<key>UTTypeDescription</key><string>Note</string><key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>NOTE</string><key>public.mime-type</key><array><string>text/x-note</string><string>Text/X-Note2</string></array></dict>"))
        </array></dict>
        """), source: "/home/x/Declarations.plist")
    let note = try #require(declarations.exportedTypes.first)
    #expect(note.filenameExtensions == ["note"])
    #expect(note.mimeTypes == ["text/x-note", "text/x-note2"])
    #expect(note.description == "Note")
    #expect(note.origin == TypeOrigin(kind: .declarations, source: "/home/x/Declarations.plist"))
  }

  @Test("hostile values in a declarations file are escaped in errors")
  func escapedErrors() {
    do {
      _ = try policy(plist("<dict><key>ExcludedActivityTypes</key><array><string>evil&#27;[2J.id</string></array></dict>"))
      Issue.record("accepted an invalid identifier")
    } catch {
      #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
      #expect(error.description.contains("\\u{1B}"))
    }
  }
}
