import Foundation
import Testing

@testable import UniformTypes

/// What a refusal suggests to the receiver's owner: the one edit that would have let the item
/// in. Checked by applying it, on every sample of the verdict table, under several declarations.
@Suite("Refusal remedies")
struct RemedyTests {
  static let registry = TypeRegistry.system()
  static let sniffer = Result { try ContentSniffer() }

  /// The default, the default excluding ISO images, the verdict table's custom file, and a
  /// strict one accepting images and PDFs only.
  static func policies() throws -> [(String, TypePolicy)] {
    let base = try TypePolicy(registry: registry, declarations: .builtinDefault)
    let noISO = try base.applying(
      DeclarationEdit(action: .exclude, types: ["public.iso-image"], arguments: [".iso"]), base: registry
    ).policy
    let custom = try TypePolicy(
      registry: registry, declarations: try Declarations.parse(Data(customDeclarationsText.utf8), source: "custom"))
    let strict = try TypePolicy(
      registry: registry,
      declarations: Declarations(
        documentTypes: [DocumentType(name: "Pictures", contentTypes: [.image, "com.adobe.pdf"])],
        excludedTypes: [.executable], source: "strict"))
    return [("default", base), ("default without .iso", noISO), ("custom", custom), ("strict", strict)]
  }

  func check(_ name: String, _ bytes: [UInt8], _ policy: TypePolicy) throws -> Verdict {
    try policy.check(name: name, head: bytes, sniffer: try Self.sniffer.get()).verdict
  }

  @Test("default without .iso: big.iso is refused with 'accept .iso', and the daemon's name stage says the same")
  func isoRemedy() throws {
    let (_, noISO) = try Self.policies()[1]
    let name = noISO.judge(name: "big.iso", kind: .file)
    #expect(!name.accepted && name.remedy == DeclarationEdit(action: .accept, types: ["public.iso-image"], arguments: [".iso"]))
    let strict = try Self.policies()[3].1
    #expect(strict.judge(name: "notes.txt", kind: .file).remedy?.arguments == [".txt"])
    #expect(strict.judge(name: "Holiday", kind: .folder).remedy?.arguments == ["public.folder"])
    // An ELF without a name can only get in if executables do: the broader exclusion is named.
    let elf = try check("tool", Array(try Data(contentsOf: URL(fileURLWithPath: "/bin/true")).prefix(65536)), try Self.policies()[0].1)
    #expect(elf.rule == .excludedContent && elf.remedy?.action == .forget && elf.remedy?.types == [.executable])
  }

  @Test("a disguise, unreadable content or invalid text has no remedy: no edit of the declarations changes them")
  func noRemedy() throws {
    let everything = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "All", contentTypes: [.item])], source: "t"))
    let elf = Array(try Data(contentsOf: URL(fileURLWithPath: "/bin/true")).prefix(65536))
    let disguised = try check("cat.png", elf, everything)
    #expect(disguised.rule == .typeMismatch && disguised.remedy == nil)
    let byDefault = try check("cat.png", elf, try Self.policies()[0].1)
    #expect(!byDefault.accepted && byDefault.remedy == nil, "\(byDefault.reason)")
    let unreadable = everything.judge(name: "a.png", head: [], totalSize: 10, sniffer: try Self.sniffer.get())
    #expect(unreadable.rule == .contentUnreadable && unreadable.remedy == nil)
  }

  @Test("every remedy, applied, makes the same item accepted; every item refused as not accepted has one")
  func everyRemedyWorks() throws {
    var applied = 0
    for (label, policy) in try Self.policies() {
      for sample in samples {
        let bytes = try sample.bytes()
        let verdict = try check(sample.name, bytes, policy)
        guard !verdict.accepted else {
          #expect(verdict.remedy == nil)
          continue
        }
        guard let remedy = verdict.remedy else {
          // Not accepted and not excluded: accepting the type always works. (An exclusion may
          // need two edits — forget a broad one, accept the type — and then there is none.)
          #expect(verdict.rule != .notAccepted, "\(label) \(sample.name): \(verdict.reason) has no remedy")
          continue
        }
        let edited = try policy.applying(remedy, base: Self.registry).policy
        let after = try check(sample.name, bytes, edited)
        #expect(after.accepted, "\(label) \(sample.name): after \(remedy.action) \(remedy.arguments): \(after.reason)")
        #expect(edited.judge(name: sample.name, kind: .file).accepted, "\(label) \(sample.name): the name stage still refuses")
        applied += 1
      }
    }
    #expect(applied >= 20, "only \(applied) remedies were tried: the table no longer exercises them")
  }
}
