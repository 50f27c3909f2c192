import Foundation
import Testing

@testable import UniformTypes

@Suite("Accept summary and sender-side prediction")
struct AcceptSummaryTests {
  static let registry = TypeRegistry.system()
  static let custom = Result {
    try TypePolicy(registry: registry, declarations: Declarations.parse(Data(customDeclarationsText.utf8), source: "custom.plist"))
  }

  @Test("the summary carries accepted groups, exclusions and the receiver's own types with their extensions")
  func contents() throws {
    let summary = try Self.custom.get().summary
    #expect(summary.acceptedTypes == ["com.example.note", "com.adobe.pdf", "public.plain-text", "public.folder"])
    #expect(summary.excludedTypes == ["public.image", "public.executable"])
    #expect(
      summary.declaredTypes
        == [AcceptSummary.DeclaredType(identifier: "com.example.note", conformsTo: ["public.plain-text"], filenameExtensions: ["note"])])
  }

  @Test("the default summary declares no types of its own")
  func defaultSummary() throws {
    let summary = try TypePolicy(registry: Self.registry, declarations: .builtinDefault).summary
    #expect(summary.declaredTypes.isEmpty)
    #expect(summary.excludedTypes.contains("public.installer-package"))
  }

  @Test("a sender without the receiver's declarations predicts the receiver's name verdicts from the summary")
  func predictions() throws {
    let receiver = try Self.custom.get()
    let wire = try JSONEncoder().encode(receiver.summary)
    let summary = try JSONDecoder().decode(AcceptSummary.self, from: wire)
    // The sender uses only built-ins, which do not know .note.
    let sender = TypeRegistry.builtinOnly
    #expect(sender.type(forFilename: "minutes.note") == .data)
    let names = ["minutes.note", "photo.png", "paper.pdf", "run.sh", "song.mp3", "blob", "dir"]
    for name in names {
      let kind: ItemKind = name == "dir" ? .folder : .file
      let predicted = summary.predictVerdict(name: name, kind: kind, registry: sender)
      let actual = receiver.judge(name: name, kind: kind)
      #expect(predicted.accepted == actual.accepted && predicted.type == actual.type && predicted.rule == actual.rule, "\(name)")
    }
    #expect(summary.predictVerdict(name: "minutes.note", kind: .file, registry: sender).decidedBy == "Notes")
  }

  @Test("the summary encodes to snake_case JSON and back")
  func snakeCase() throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let summary = try Self.custom.get().summary
    let data = try encoder.encode(summary)
    let json = String(decoding: data, as: UTF8.self)
    #expect(json.contains("\"declared_types\"") && json.contains("\"filename_extensions\"") && json.contains("\"conforms_to\""))
    #expect(try decoder.decode(AcceptSummary.self, from: data) == summary)
  }

  @Test("a hostile summary is bounded, its bad declarations dropped, and prediction still works")
  func hostileSummary() {
    let many = (0..<5000).map { TypeIdentifier("com.example.t\($0)") }
    let hostileNames: [DocumentType] = (0..<1000).map { _ in
      DocumentType(name: String(repeating: "\u{1B}", count: 10_000), contentTypes: [.image, "not an id"] + many)
    }
    let filler: [AcceptSummary.DeclaredType] = (0..<1000).map { index in
      AcceptSummary.DeclaredType(
        identifier: TypeIdentifier("com.example.d\(index)"), conformsTo: [.data], filenameExtensions: ["e\(index)"])
    }
    let summary = AcceptSummary(
      documentTypes: hostileNames,
      excludedTypes: many + ["bad id", "public.script"],
      declaredTypes: [
        .init(identifier: "com.example.a", conformsTo: ["com.example.b"], filenameExtensions: ["aa"]),
        .init(identifier: "com.example.b", conformsTo: ["com.example.a"], filenameExtensions: ["bb"]),
        .init(identifier: "public.png", conformsTo: [.data], filenameExtensions: ["png"]),
        .init(identifier: "com.example.c", conformsTo: ["com.unknown.parent"], filenameExtensions: ["cc", "../x", ""]),
        .init(identifier: "nope", conformsTo: [.data], filenameExtensions: ["dd"]),
      ] + filler)
    let bounded = summary.bounded()
    #expect(bounded.documentTypes.count == AcceptSummary.Limits.documentTypes)
    #expect(bounded.declaredTypes.count == AcceptSummary.Limits.declaredTypes)
    #expect(bounded.excludedTypes.count <= AcceptSummary.Limits.identifiersPerList)
    let policy = TypePolicy(registry: .builtinOnly, summary: summary)
    // The cycle was dropped; png stays the built-in; the unknown parent fell back to public.data.
    #expect(policy.registry.type(forFilename: "x.png") == "public.png")
    #expect(policy.registry.type(forFilename: "x.cc") == "com.example.c")
    #expect(policy.registry.conforms("com.example.c", to: .data))
    let verdict = policy.judge(name: "x.png", kind: .file)
    #expect(verdict.accepted)
    #expect(!verdict.reason.contains("\u{1B}"))
  }
}
