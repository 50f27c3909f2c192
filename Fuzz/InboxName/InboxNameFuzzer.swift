import InboxStore

/// Fuzzes how a name offered by a peer becomes a name in the Inbox (`InboxName.sanitize`), how
/// a folder entry's path becomes components (`sanitize(relativePath:)`), and collision variants.
///
/// The input's bytes are the offered name (invalid UTF-8 replaced, as JSON decoding would never
/// produce it but a future transport might).
///
/// Properties of every name `sanitize` returns (Inbox/README.md):
/// - not empty, not `.` or `..`, no `/`, no NUL;
/// - no C0/C1 control, DEL or invisible bidirectional control;
/// - nothing that shows nothing (a default-ignorable code point other than a variation selector,
///   a noncharacter) and no space but U+0020;
/// - no white space at either end;
/// - at most `InboxName.maxBytes` UTF-8 bytes, and a collision variant still fits 255;
/// - sanitising it again gives it back (a stored name is already a safe name);
/// - a refusal happens exactly for an empty, dot, `/` or NUL name.
/// For relative paths: every component satisfies the same; the components are never more than
/// the path's `/`-separated parts, and a refused path names a reason.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzInboxName(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let raw = String(decoding: bytes(data, size), as: UTF8.self)
  do {
    let name = try InboxName.sanitize(raw)
    checkStoredName(name, from: raw)
    require(
      !raw.unicodeScalars.contains("/") && !raw.unicodeScalars.contains("\0"), "accepted a name with / or NUL: \(raw.debugDescription)")
  } catch {
    switch error {
    case .pathSeparator: require(raw.unicodeScalars.contains("/"), "refused as a path without a /: \(raw.debugDescription)")
    case .nul: require(raw.unicodeScalars.contains("\0"), "refused for NUL without one: \(raw.debugDescription)")
    case .empty, .dotName: break
    }
  }
  do {
    let components = try InboxName.sanitize(relativePath: raw)
    require(raw.unicodeScalars.first != "/", "accepted an absolute path: \(raw.debugDescription)")
    require(
      components.count == raw.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).count, "components lost or added")
    for component in components { checkStoredName(component, from: raw) }
  } catch {}
  return 0
}

private func checkStoredName(_ name: String, from raw: String) {
  let shown = "\(raw.debugDescription) → \(name.debugDescription)"
  require(!name.isEmpty, "empty name from \(shown)")
  require(name != "." && name != "..", "dot name from \(shown)")
  require(!name.unicodeScalars.contains("/"), "/ in the name from \(shown)")
  require(!name.unicodeScalars.contains("\0"), "NUL in the name from \(shown)")
  require(!hasTerminalControls(name), "control character in the name from \(shown)")
  let stored = Array(name.unicodeScalars)
  for (index, scalar) in stored.enumerated() where isInvisibleOrOtherSpace(scalar) {
    // A zero-width (non-)joiner may stay between two visible non-ASCII characters, no other.
    let joins =
      (scalar.value == 0x200C || scalar.value == 0x200D) && index > 0 && index + 1 < stored.count
      && [stored[index - 1], stored[index + 1]].allSatisfy {
        !$0.isASCII && !$0.properties.isWhitespace && (!isInvisibleOrOtherSpace($0) || isVariationSelector($0))
      }
    // A variation selector only after a non-ASCII character, or in a keycap (`1️⃣`).
    let selects =
      isVariationSelector(scalar) && index > 0
      && (!stored[index - 1].isASCII || (index + 1 < stored.count && stored[index + 1].value == 0x20E3))
    require(joins || selects, "invisible character or other space in the name from \(shown)")
  }
  require(!name.contains("  "), "a run of spaces in the name from \(shown)")
  require(name.utf8.count <= InboxName.maxBytes, "\(name.utf8.count) bytes from \(shown)")
  if let first = name.unicodeScalars.first, let last = name.unicodeScalars.last {
    require(
      !first.properties.isWhitespace && !last.properties.isWhitespace, "white space at an end from \(shown)")
  }
  let again = try? InboxName.sanitize(name)
  require(again == name, "not stable: \(shown) → \(again.debugDescription)")
  let variant = InboxName.variant(of: name, number: 99_999)
  require(variant.utf8.count <= 255 && !variant.unicodeScalars.contains("/"), "variant \(variant.debugDescription) of \(shown)")
}

private func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
  (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value)
    || (0x180B...0x180D).contains(scalar.value) || scalar.value == 0x180F
}

/// A scalar a stored name must not hold beyond the terminal controls: one that shows nothing
/// (default-ignorable, a format character, a noncharacter, the braille blank, the object
/// replacement character) or white space other than U+0020.
private func isInvisibleOrOtherSpace(_ scalar: Unicode.Scalar) -> Bool {
  if scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .format { return true }
  if scalar.value == 0x2800 || scalar.value == 0xFFFC { return true }
  return scalar.properties.isNoncharacterCodePoint || (scalar != " " && scalar.properties.isWhitespace)
}
