import Foundation
import TextEscaping

/// How a name offered by a peer becomes a name in the Inbox. Pure; no file system access.
///
/// The rules (also in Inbox/README.md):
/// - refused: an empty name, `.`, `..`, and any name holding `/` or NUL (a path, not a name);
/// - control characters (C0, DEL, C1), line and paragraph separators and characters that show
///   nothing or hide (bidi controls, zero-width characters, the soft hyphen, Hangul fillers, tag
///   characters, every format character and other default-ignorable code point, noncharacters,
///   the braille blank, the object replacement character) become `_`; a variation selector
///   stays where it selects (`selects`) and a joiner where it joins (`Escaping.isJoiner`);
/// - white space at either end is dropped (a name it leaves starting with `.`, hidden, gets a
///   `_` in front: `  .txt` is `_.txt`), a space of another kind inside (no-break, en, em,
///   thin, ideographic...) becomes an ordinary space, and a run of spaces one: `invoice.pdf` and
///   a run of spaces do not stretch to hide the `.txt` after them;
/// - characters are composed (NFC): `e` + U+0301 is `é`, so one name spelt two ways is one name
///   (a second `café.txt` becomes `café-1.txt`, not a twin that looks the same);
/// - a name longer than 240 UTF-8 bytes is shortened, keeping its extension, so a collision
///   suffix still fits in the 255-byte limit of Linux file systems; the refusals above apply to
///   the shortened name too;
/// - a URL item ends in `.url`, a text item in `.txt` (`withExtension`);
/// - on collision: `name-1.ext`, `name-2.ext`, ... (compound extensions such as `.tar.gz` stay whole).
package enum InboxName {
  /// The longest stored name, leaving room for a collision suffix under the 255-byte limit.
  package static let maxBytes = 240

  /// Why a name is refused.
  package enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case dotName
    case pathSeparator
    case nul

    package var description: String {
      switch self {
      case .empty: return "the name is empty"
      case .dotName: return "the name is \".\" or \"..\""
      case .pathSeparator: return "the name contains \"/\" (a path, not a name)"
      case .nul: return "the name contains a NUL byte"
      }
    }
  }

  /// The name to store an offered name under, or the problem that refuses it.
  package static func sanitize(_ raw: String) throws(Problem) -> String {
    // Printable ASCII that fits, with no space at either end and no run of them, is stored as
    // it is (composing, trimming, cleaning and shortening leave it so): most names, without a
    // trip through Foundation's normalisation (review 26: an Ask of 1,000 paths 2,040 folders
    // deep sanitized two million components).
    if isPlainASCII(raw), raw.utf8.first != 0x20, raw.utf8.last != 0x20, raw.utf8.count <= maxBytes {
      if raw.utf8.contains(UInt8(ascii: "/")) { throw .pathSeparator }
      if raw.isEmpty { throw .empty }
      if raw == "." || raw == ".." { throw .dotName }
      return raw
    }
    return try sanitizedInFull(raw)
  }

  /// `sanitize` without its shortcut for plain ASCII (which must agree with it).
  static func sanitizedInFull(_ raw: String) throws(Problem) -> String {
    // On scalars: `contains` on a String compares Characters, and `/` followed by a combining
    // mark is one Character that is not "/" (fuzz finding F4).
    if raw.unicodeScalars.contains("/") { throw .pathSeparator }
    if raw.unicodeScalars.contains("\0") { throw .nul }
    // The checks apply to the name as it will be stored, after any shortening (fuzz finding F2);
    // cleaned again after it, as a cut can leave a joiner with nothing to join.
    let composed = raw.precomposedStringWithCanonicalMapping
    var trimmed = cleaned(composed.trimmingWhitespace())
    // White space dropped from the front must not make a name hidden: `  .txt` showed as a
    // name and became the hidden `.txt` (review 21). What it hid behind becomes a `_`, before
    // any shortening (which keeps a name's start), so the name still fits (fuzz finding).
    if trimmed.hasPrefix("."), !composed.hasPrefix("."), trimmed != ".", trimmed != ".." { trimmed = "_" + trimmed }
    let name = cleaned(shorten(trimmed, to: maxBytes))
    if name.isEmpty { throw .empty }
    if name == "." || name == ".." { throw .dotName }
    return name
  }

  /// `name` ending in `.ext` (compared case-insensitively), adding it when missing: a URL is
  /// stored as `….url`, a text snippet as `….txt`, whatever name it came with.
  package static func withExtension(_ name: String, _ ext: String) -> String {
    name.lowercased().hasSuffix("." + ext.lowercased()) ? name : "\(name).\(ext)"
  }

  /// The `number`th alternative for a taken name: `photo.jpg` → `photo-1.jpg`.
  package static func variant(of name: String, number: Int) -> String {
    guard number > 0 else { return name }
    let (stem, ext) = split(name)
    return "\(stem)-\(number)\(ext)"
  }

  /// Splits off the extension (with its dot), keeping compound archive extensions whole.
  /// A leading dot does not start an extension (`.bashrc` has none).
  package static func split(_ name: String) -> (stem: String, ext: String) {
    let lower = name.lowercased()
    for compound in compoundExtensions where lower.hasSuffix(compound) && lower.count > compound.count {
      let cut = name.index(name.endIndex, offsetBy: -compound.count)
      return (String(name[..<cut]), String(name[cut...]))
    }
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
    let ext = name[dot...]
    // A long or spaced "extension" is more likely part of the name.
    if ext.utf8.count > 17 || ext.contains(" ") { return (name, "") }
    return (String(name[..<dot]), String(ext))
  }

  private static let compoundExtensions = [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tar.lz"]

  /// `name` with each scalar `cleaned`, but a joiner that joins (`Escaping.isJoiner`) and a variation
  /// selector that selects (`selects`); a run of spaces becomes one (a long run could push a
  /// real extension out of sight: `invoice.pdf      .txt`).
  private static func cleaned(_ name: String) -> String {
    // Printable ASCII without a run of spaces has nothing to clean (no scalar of it is unsafe,
    // a space of another kind, a joiner or a selector): most names, without the scalars'
    // property lookups (4% of a receiving thread's time for an Ask of 5,000 names).
    if isPlainASCII(name) { return name }
    let offered = Array(name.unicodeScalars)
    var scalars = String.UnicodeScalarView()
    var flagTagsThrough = -1
    for (index, scalar) in offered.enumerated() {
      // A subdivision flag's tags (🏴󠁧󠁢󠁳󠁣󠁴󠁿) are kept; any other tag character is `_`.
      if index <= flagTagsThrough {
        scalars.append(scalar)
        continue
      }
      if case let tags = Escaping.flagTagCount(offered, at: index), tags > 0 { flagTagsThrough = index + tags }
      // What comes before is taken as stored (a selector or joiner it replaced must not vouch
      // for the next one: the name must come out the same when cleaned again); what comes after
      // is a joining character or emoji, which cleaning never changes.
      let before = scalars.last
      let after = index + 1 < offered.count ? offered[index + 1] : nil
      let stored: Unicode.Scalar
      if let before, let after, Escaping.isJoiner(scalar, between: before, after) {
        stored = scalar
      } else if Escaping.isVariationSelector(scalar) {
        stored = selects(after: before, before: after) ? scalar : "_"
      } else {
        stored = cleaned(scalar)
      }
      if stored == " ", scalars.last == " " { continue }
      scalars.append(stored)
    }
    return String(scalars)
  }

  /// Only printable ASCII (space to `~`), no two spaces in a row.
  private static func isPlainASCII(_ name: String) -> Bool {
    var previous: UInt8 = 0
    for byte in name.utf8 {
      guard byte >= 0x20 && byte < 0x7F, byte != 0x20 || previous != 0x20 else { return false }
      previous = byte
    }
    return true
  }

  /// Whether a variation selector after `previous` (and before `next`) changes how something
  /// looks: after a visible non-ASCII character (an emoji's `❤️`), or in a keycap (`1️⃣`). After
  /// an ASCII letter it only hides.
  private static func selects(after previous: Unicode.Scalar?, before next: Unicode.Scalar?) -> Bool {
    guard let previous else { return false }
    if previous.isASCII { return "0123456789#*".unicodeScalars.contains(previous) && next?.value == 0x20E3 }
    return !previous.properties.isWhitespace && !Escaping.isVariationSelector(previous) && !isUnsafe(previous)
  }

  /// What a scalar of an offered name is stored as: `_` for an unsafe or invisible one, an
  /// ordinary space for a space of another kind, else itself.
  private static func cleaned(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    if isUnsafe(scalar) { return "_" }
    if scalar != " " && scalar.properties.isWhitespace { return " " }
    return scalar
  }

  /// Control characters, DEL, C1 controls, line and paragraph separators, and what shows
  /// nothing: the bidi controls that can make `exe.png` look like `gnp.exe`, and every other
  /// format character and default-ignorable code point (zero-width space, joiners, word joiner,
  /// BOM, soft hyphen, Hangul fillers, Mongolian vowel separator, tag characters, variation
  /// selectors...) and noncharacter, which can hide inside a name or make two names look alike.
  /// (`cleaned` keeps the joiners and variation selectors that join or select before asking.)
  private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
    // Blank or placeholder symbols: the braille blank, the object replacement character.
    case 0x2800, 0xFFFC: return true
    // What stands for a raw byte of a local name that is not UTF-8 (`FileNameText`): a peer's
    // name holding one would otherwise be stored as that byte, a name that is not UTF-8.
    case _ where FileNameText.isRawByte(scalar): return true
    default:
      let properties = scalar.properties
      return properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint
        || properties.generalCategory == .format
    }
  }

  /// Shortens to at most `limit` UTF-8 bytes, keeping the extension, and drops the white space a
  /// cut leaves at the end. The cut falls between Unicode scalars, not `Character`s: one Character
  /// can be any length (a letter and 130 combining marks), so cutting before it could leave
  /// nothing, `.` or `..` of a long name (fuzz finding F2).
  private static func shorten(_ name: String, to limit: Int) -> String {
    guard name.utf8.count > limit else { return name }
    let (stem, ext) = split(name)
    let keep = ext.utf8.count <= 32 ? ext : ""
    var out = String.UnicodeScalarView()
    var bytes = keep.utf8.count
    for scalar in (keep.isEmpty ? name : stem).unicodeScalars {
      bytes += UTF8.width(scalar)
      if bytes > limit { break }
      out.append(scalar)
    }
    return String(out).trimmingWhitespace() + keep
  }
}

extension String {
  fileprivate func trimmingWhitespace() -> String {
    var scalars = Substring(self).unicodeScalars
    while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }
}
