import Foundation
import TextEscaping

/// The words of verdicts: what a person reads on the sender's line and in the receiver's log.
///
/// A refusal is the receiver's own sentence about itself: with `receiverName`, "lab-b does not
/// accept disk images (big.iso)", "lab-b does not accept executables: cat.png is a Unix
/// executable (ELF), not a PNG image"; without it (a local check), "rejected: does not accept …".
/// Reasons name kinds by their descriptions; the identifiers stay in the verdict's fields
/// (`type`, `name_type`, `content_type`, `decided_by`) for `--json` and `--verbose`. Names and
/// libmagic's words are escaped and shortened; a reason is always one line.
extension TypePolicy {
  /// "lab-b does not accept …" when the receiver's name is known, else "rejected: does not accept …".
  func refusal(_ predicate: String) -> String {
    guard let receiverName, !receiverName.isEmpty else { return "rejected: " + predicate }
    return Escaping.escaped(receiverName, maximumLength: 64) + " " + predicate
  }

  /// "cat.png", "folder Holiday", "the URL", "the text snippet": the item as a reason names it.
  func subject(_ name: String, _ kind: ItemKind) -> String {
    // The item as it is called: its last `/` component, backslashes and all (review 37:
    // `Q3 budget\draft.sh` was called "draft.sh", the part its type is read from).
    let shown = Escaping.escaped(TypeRegistry.calledName(name) ?? "", maximumLength: 80)
    switch kind {
    case .file: return shown.isEmpty ? "the file" : shown
    case .folder: return "folder \(shown)"
    case .url: return "the URL"
    case .text: return "the text snippet"
    }
  }

  func excludedContentReason(
    name: String, kind: ItemKind = .file, nameType: TypeIdentifier, content: ContentType, excluded: TypeIdentifier
  ) -> String {
    var reason =
      "does not accept \(Wording.plural(registry.describe(excluded))): "
      + "\(subject(name, kind)) is \(Wording.withArticle(registry.describe(content.type)))"
    if nameType != .data, !registry.conforms(content.type, to: nameType) {
      reason += ", not \(Wording.withArticle(registry.describe(nameType)))"
    }
    return refusal(reason + evidence(content))
  }

  func excludedNameReason(name: String, kind: ItemKind, type: TypeIdentifier, excluded: TypeIdentifier) -> String {
    let kinds = Wording.plural(registry.describe(excluded))
    if type == excluded { return refusal("does not accept \(kinds) (\(subject(name, kind)))") }
    return refusal("does not accept \(kinds): \(subject(name, kind)) is named as \(Wording.withArticle(registry.describe(type)))")
  }

  func disguiseReason(name: String, kind: ItemKind = .file, nameType: TypeIdentifier, content: ContentType) -> String {
    refusal(
      "does not accept \(Wording.withArticle(registry.describe(content.type))) "
        + "disguised as \(Wording.withArticle(registry.describe(nameType))) (\(subject(name, kind)))" + evidence(content))
  }

  /// A text or URL item that is not what its kind says: "does not accept the URL: it is not …".
  func invalidTextReason(_ kind: ItemKind, _ why: String) -> String {
    refusal("does not accept \(subject("", kind)): it \(why)")
  }

  /// A link file whose link is refused: "does not accept the link in evil.url: its URL uses …".
  func invalidLinkReason(name: String, _ why: String) -> String {
    refusal("does not accept the link in \(subject(name, .file)): \(why)")
  }

  /// Content that could not be examined: "could not examine the content of big.iso: …".
  func unreadableContentReason(name: String, kind: ItemKind = .file, _ why: String) -> String {
    refusal("could not examine the content of \(subject(name, kind)): \(why)")
  }

  /// `namedOtherwise`: the name's type when the content decided against it.
  func notAcceptedReason(name: String, kind: ItemKind, type: TypeIdentifier, namedOtherwise: TypeIdentifier? = nil) -> String {
    let what = "does not accept \(Wording.plural(registry.describe(type)))"
    guard let namedOtherwise, namedOtherwise != .data else { return refusal("\(what) (\(subject(name, kind)))") }
    return refusal(
      "\(what) (\(subject(name, kind)) is \(Wording.withArticle(registry.describe(type))), "
        + "not \(Wording.withArticle(registry.describe(namedOtherwise))))")
  }

  func acceptedReason(_ type: TypeIdentifier, _ documentType: String, namedOtherwise: TypeIdentifier? = nil) -> String {
    var reason = "accepted: \(registry.describe(type)) (\(Escaping.quoted(documentType)))"
    if let namedOtherwise, namedOtherwise != .data {
      reason += ", though its name says \(registry.describe(namedOtherwise))"
    }
    return reason
  }

  /// libmagic's words (or share's own finding) in brackets, when there are any.
  private func evidence(_ content: ContentType) -> String {
    let label = content.label
    return label.isEmpty || label == content.mimeType ? "" : " [\(label)]"
  }
}

/// English for type descriptions: plurals and articles. Descriptions are short noun phrases
/// ("PNG image", "Unix executable (ELF)", "plain text"); a dynamic type's is its MIME type.
enum Wording {
  /// Nouns that take no plural and no article.
  static let massNouns: Set<String> = [
    "data", "text", "audio", "content", "software", "source", "code", "information", "media", "help", "bytecode",
  ]

  /// "disk image" → "disk images", "Unix executable (ELF)" → "Unix executables (ELF)",
  /// "desktop entry" → "desktop entries", "plain text" → "plain text",
  /// "application/x-foo" → "application/x-foo files".
  static func plural(_ phrase: String) -> String {
    if phrase.contains("/") { return phrase + " files" }
    let (head, tail) = splitParenthetical(phrase)
    var words = head.split(separator: " ").map(String.init)
    guard let last = words.popLast() else { return phrase }
    let lower = last.lowercased()
    let plural: String
    if massNouns.contains(lower) {
      plural = last
    } else if ["s", "x", "sh", "ch", "z"].contains(where: { lower.hasSuffix($0) }) {
      plural = last + "es"
    } else if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) {
      plural = String(last.dropLast()) + "ies"
    } else {
      plural = last + "s"
    }
    return (words + [plural]).joined(separator: " ") + tail
  }

  /// "a PNG image", "an OpenType font", "an HTML application (HTA)", "a Unix executable (ELF)",
  /// "plain text" (mass nouns take none), "a file of type application/x-foo".
  static func withArticle(_ phrase: String) -> String {
    if phrase.contains("/") { return "a file of type \(phrase)" }
    let (head, _) = splitParenthetical(phrase)
    if let last = head.split(separator: " ").last, massNouns.contains(last.lowercased()) { return phrase }
    guard let first = phrase.first else { return phrase }
    let second = phrase.dropFirst().first
    let acronym = first.isUppercase && (second.map { $0.isUppercase || $0.isNumber || !$0.isLetter } ?? true)
    let an = acronym ? "AEFHILMNORSX".contains(first) : "aeioAEIO".contains(first)
    return (an ? "an " : "a ") + phrase
  }

  /// "Word document (docx)" → ("Word document", " (docx)"); no parenthetical → (phrase, "").
  private static func splitParenthetical(_ phrase: String) -> (String, String) {
    guard phrase.hasSuffix(")"), let open = phrase.range(of: " (", options: .backwards) else { return (phrase, "") }
    return (String(phrase[..<open.lowerBound]), String(phrase[open.lowerBound...]))
  }
}
