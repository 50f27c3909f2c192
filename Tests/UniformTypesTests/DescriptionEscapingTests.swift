import Foundation
import Testing

@testable import UniformTypes

/// Fuzz finding F3: a declared type's UTTypeDescription with escape sequences reached verdict
/// reasons raw, and reasons travel to senders and into the daemon's log.
@Suite struct DescriptionEscapingTests {
  @Test func aDeclaredDescriptionWithEscapeSequencesReachesReasonsEscaped() throws {
    let description = "Example\u{1B}]52;c;eA==\u{07}\u{1B}[2J note\u{202E}"
    let plist: [String: Any] = [
      "UTImportedTypeDeclarations": [
        [
          "UTTypeIdentifier": "com.example.note", "UTTypeDescription": description,
          "UTTypeConformsTo": "public.plain-text",
          "UTTypeTagSpecification": ["public.filename-extension": "note"],
        ]
      ],
      "CFBundleDocumentTypes": [["CFBundleTypeName": "Notes", "LSItemContentTypes": ["com.example.note"]]],
    ]
    // Binary: an XML property list cannot hold ESC at all.
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    let policy = try TypePolicy(registry: .builtinOnly, declarations: Declarations.parse(data, source: "f3.plist"))
    for name in ["a.note", "b.note.sh"] {
      let reason = policy.judge(name: name, kind: .file).reason
      #expect(
        !reason.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" },
        "\(reason.debugDescription)")
    }
    #expect(policy.judge(name: "a.note", kind: .file).reason.contains(#"Example\u{1B}]52;c;eA==\u{7}\u{1B}[2J note\u{202E}"#))
  }
}
