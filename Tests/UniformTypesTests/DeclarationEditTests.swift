import Foundation
import Testing

@testable import UniformTypes

/// `share types accept|exclude|forget`'s edits, the types a person may name, and the remedy a
/// refusal suggests to the receiver's owner — checked by applying it.
@Suite("Editing declarations")
struct DeclarationEditTests {
  static let registry = TypeRegistry.system()
  static let sniffer = Result { try ContentSniffer() }

  func policy(_ declarations: Declarations = .builtinDefault) throws -> TypePolicy {
    try TypePolicy(registry: Self.registry, declarations: declarations)
  }

  func edit(_ policy: TypePolicy, _ action: DeclarationEdit.Action, _ queries: String...) throws -> EditedDeclarations {
    let types = try queries.map { try policy.registry.identifier(forQuery: $0) }
    return try policy.applying(DeclarationEdit(action: action, types: types, arguments: queries), base: Self.registry)
  }

  // MARK: Naming types

  @Test("a type is named by identifier, extension or MIME type; unknown ones are errors with a suggestion")
  func queries() throws {
    let registry = try policy().registry
    for query in ["public.iso-image", ".iso", ".ISO", "application/x-cd-image", "dyn.mime.application/x-cd-image"] {
      #expect(try registry.identifier(forQuery: query) == "public.iso-image", "\(query)")
    }
    #expect(try registry.identifier(forQuery: "font/ttf") == "public.truetype-ttf-font")
    let unknown: [(String, String)] = [
      (".bin-nobody-knows", "no type is known for the extension .bin-nobody-knows"),
      ("public.imag", "did you mean public.image?"),
      ("iso", "did you mean .iso?"),
      ("image/x-nobody-knows", "name it dyn.mime.image/x-nobody-knows to mean it anyway"),
      ("not/a/mime", "is not a MIME type"),
      (".", "is not a filename extension"),
    ]
    for (query, words) in unknown {
      #expect(throws: TypeEditError.self, "\(query)") { try registry.identifier(forQuery: query) }
      do {
        _ = try registry.identifier(forQuery: query)
      } catch {
        #expect(error.kind == .unknownType && error.message.contains(words), "\(query): \(error.message)")
      }
    }
    #expect(registry.argument(for: "public.iso-image") == ".iso")
    #expect(registry.argument(for: .executable) == "public.executable")
  }

  // MARK: Edits

  @Test("exclude on the default adds the one exclusion and keeps everything else; forget brings the default back")
  func excludeThenForget() throws {
    let excluded = try edit(policy(), .exclude, ".iso")
    #expect(excluded.outcomes.map(\.changes) == [[.excluded]] && excluded.changed)
    #expect(excluded.declarations.excludedTypes == Declarations.builtinDefault.excludedTypes + ["public.iso-image"])
    #expect(excluded.declarations.documentTypes == Declarations.builtinDefault.documentTypes)
    #expect(excluded.policy.exclusion(of: "public.iso-image") == "public.iso-image")
    #expect(excluded.policy.acceptance(of: "public.raw-disk-image")?.documentType == "Disk images")

    let again = try edit(excluded.policy, .exclude, "application/x-cd-image")
    #expect(again.outcomes.map(\.changes) == [[.alreadyExcluded]] && !again.changed)

    let forgotten = try edit(excluded.policy, .forget, ".iso")
    #expect(forgotten.outcomes.map(\.changes) == [[.unexcluded]])
    #expect(forgotten.declarations.sameContent(as: .builtinDefault))
    #expect(forgotten.outcomes.first?.acceptedBy == "Disk images" && forgotten.outcomes.first?.excludedBy == nil)
  }

  @Test("accept lifts the type's own exclusion, gives an uncovered type an entry of its own, and changes nothing when already accepted")
  func accept() throws {
    let excluded = try edit(policy(), .exclude, ".iso")
    let back = try edit(excluded.policy, .accept, ".iso")
    #expect(back.outcomes.map(\.changes) == [[.unexcluded]] && back.declarations.sameContent(as: .builtinDefault))

    let imagesOnly = try policy(Declarations(documentTypes: [DocumentType(name: "Images", contentTypes: [.image])], source: "t"))
    let accepted = try edit(imagesOnly, .accept, ".iso", ".png", "application/x-blender")
    #expect(accepted.outcomes.map(\.changes) == [[.accepted], [.alreadyAccepted], [.accepted]])
    #expect(accepted.declarations.documentTypes.map(\.name) == ["Images", "ISO disk images", "Blender scenes"])
    #expect(accepted.outcomes.map(\.acceptedBy) == ["ISO disk images", "Images", "Blender scenes"])
    #expect(accepted.policy.judge(name: "big.iso", kind: .file).accepted)
  }

  @Test("accepting a type a broader exclusion covers is refused with the exclusion named; nothing is applied")
  func acceptUnderBroaderExclusion() throws {
    let policy = try policy()
    do {
      _ = try edit(policy, .accept, ".iso", ".exe")
      Issue.record("accepting .exe under public.executable must fail")
    } catch let error as TypeEditError {
      #expect(error.kind == .excludedByParent)
      #expect(error.message.contains("cannot accept Windows executables (.exe)"), "\(error.message)")
      #expect(error.message.contains("'share types forget public.executable'"), "\(error.message)")
    }
  }

  @Test("exclude takes the type out of the accepted lists; forget of an unmentioned type changes nothing")
  func excludeRemovesAcceptance() throws {
    let excluded = try edit(policy(), .exclude, "public.font")
    #expect(excluded.outcomes.map(\.changes) == [[.excluded, .unaccepted]])
    #expect(!excluded.declarations.documentTypes.contains { $0.name == "Fonts" })
    #expect(!excluded.policy.judge(name: "a.ttf", kind: .file).accepted)
    let nothing = try edit(policy(), .forget, ".zip")
    #expect(nothing.outcomes.map(\.changes) == [[.notMentioned]] && !nothing.changed)
  }

  @Test("an edit whose result is not valid is refused")
  func invalidResult() throws {
    // Declared types that clash once a built-in registry grows are caught by the policy build.
    let declarations = Declarations(
      documentTypes: [DocumentType(name: "Notes", contentTypes: ["com.example.note"])],
      exportedTypes: [
        TypeDeclaration(
          identifier: "com.example.note", description: "Note", conformsTo: [.plainText], origin: TypeOrigin(kind: .declarations))
      ],
      source: "t")
    let policy = try policy(declarations)
    // Built on a registry that already has com.example.note, the result is a duplicate declaration.
    let clashing = try Self.registry.adding([
      TypeDeclaration(identifier: "com.example.note", description: "Note", conformsTo: [.data])
    ])
    #expect(throws: TypeEditError.self) {
      try policy.applying(DeclarationEdit(action: .exclude, types: [.executable], arguments: ["public.executable"]), base: clashing)
    }
  }
}
