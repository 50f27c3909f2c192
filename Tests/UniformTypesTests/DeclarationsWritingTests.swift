import Foundation
import Testing

@testable import UniformTypes

/// Declarations written back as a property list (`share types accept|exclude|forget`): a valid,
/// readable XML plist that reads back as the same declarations, or an error and nothing.
@Suite("Writing declarations")
struct DeclarationsWritingTests {
  static let registry = TypeRegistry.system()

  @Test("the default and a custom file with declared types and tags round-trip through the XML plist")
  func roundTrip() throws {
    let custom = try Declarations.parse(Data(customDeclarationsText.utf8), source: "custom.plist")
    #expect(!custom.importedTypes.isEmpty && !custom.excludedTypes.isEmpty)
    var exported = custom
    exported.exportedTypes = [
      TypeDeclaration(
        identifier: "com.example.recipe", description: "Recipe card", conformsTo: ["public.xml", "public.composite-content"],
        filenameExtensions: ["recipe", "rcp"], mimeTypes: ["application/x-recipe"], origin: TypeOrigin(kind: .declarations)),
      TypeDeclaration(identifier: "com.example.blob", description: "Blob", conformsTo: [.data], origin: TypeOrigin(kind: .declarations)),
    ]
    for declarations in [Declarations.builtinDefault, custom, exported] {
      let data = try declarations.propertyList()
      let reread = try Declarations.parse(data, source: "reread")
      #expect(reread.sameContent(as: declarations))
      #expect(reread.documentTypes == declarations.documentTypes)
      #expect(reread.exportedTypes.map(\.filenameExtensions) == declarations.exportedTypes.map(\.filenameExtensions))
      // The same policy as the original: what a receiver builds from it.
      let policy = try TypePolicy(registry: Self.registry, declarations: reread)
      #expect(policy.accepted == (try TypePolicy(registry: Self.registry, declarations: declarations)).accepted)
    }
  }

  @Test("the file is an XML property list a person can read: header, a comment saying who wrote it, plain keys")
  func readableXML() throws {
    let data = try Declarations.builtinDefault.propertyList()
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))
    #expect(text.contains("<!--\n  Written by 'share types'"))
    #expect(text.contains("<key>ExcludedActivityTypes</key>") && text.contains("<string>public.executable</string>"))
    #expect(text.contains("\n") && text.split(separator: "\n").count > 40, "one element per line")
    var format = PropertyListSerialization.PropertyListFormat.binary
    let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
    #expect(format == .xml)
    #expect((object as? [String: Any])?["CFBundleDocumentTypes"] != nil)
    #expect(Declarations.isWrittenByShare(data))
    #expect(!Declarations.isWrittenByShare(Data(Declarations.defaultPlist.utf8)))
  }

  @Test("empty lists are left out, and what is left still reads back")
  func emptyListsLeftOut() throws {
    let excludingOnly = Declarations(excludedTypes: [.executable], source: "x")
    let text = String(decoding: try excludingOnly.propertyList(), as: UTF8.self)
    #expect(!text.contains("<key>CFBundleDocumentTypes</key>") && !text.contains("<key>UTExportedTypeDeclarations</key>"))
    #expect(try Declarations.parse(Data(text.utf8), source: "x").excludedTypes == [.executable])
  }

  @Test("declarations that would not read back as they are give an error, never half-right bytes")
  func unwritable() {
    // A name the reader trims, an empty name, an identifier that is not reverse-DNS.
    let cases: [(Declarations, String)] = [
      (Declarations(documentTypes: [DocumentType(name: "  Images ", contentTypes: [.image])], source: "a"), "would not read back"),
      (Declarations(documentTypes: [DocumentType(name: "", contentTypes: [.image])], source: "b"), "empty name"),
      (Declarations(documentTypes: [DocumentType(name: "X", contentTypes: [])], source: "c"), "at least one type identifier"),
      (Declarations(excludedTypes: ["not an identifier"], source: "d"), "is not a reverse-DNS type identifier"),
    ]
    for (declarations, words) in cases {
      #expect {
        _ = try declarations.propertyList()
      } throws: { error in
        "\(error)".contains(words)
      }
    }
  }
}
