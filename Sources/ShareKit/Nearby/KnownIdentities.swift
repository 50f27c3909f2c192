import Foundation
import TLS

/// The pairs of device name and device ID this home has proof of: its contacts (each added
/// with the ID it proved, by pairing or acceptance, or typed in by its owner), the names it sent
/// to before and the ID each proved by its certificate then (trust on first use), and itself.
///
/// A discovery record's TXT `id` is only a claim: anyone can advertise any ID under any name.
/// What a record may be shown as is decided here, by whether its name and its claimed ID are a
/// pair this home knows. Names compare as DNS compares them (ASCII letters regardless of case):
/// Avahi cannot publish `Lab-B` and `lab-b` side by side on one link.
package struct KnownIdentities: Sendable {
  /// This home's own name and ID.
  package let own: (name: String, id: Fingerprint)?
  package let trust: TrustStore
  package let known: KnownPeers

  package init(own: (name: String, id: Fingerprint)?, trust: TrustStore, known: KnownPeers) {
    self.own = own
    self.trust = trust
    self.known = known
  }

  /// The pairs of other devices, a name to an ID, contacts first; one name may come twice (a
  /// contact and a remembered name). A remembered name that is a contact's (or looks like it)
  /// with another ID is left out: trust on first use never overrules a contact (review 17: such
  /// a pin sent the contact's items to a stranger, and showed the contact as the impostor).
  private var others: [(name: String, id: Fingerprint)] {
    let remembered = known.entries.filter { trust.contact(sharingNameWith: PeerText($0.name), other: $0.id) == nil }
    return trust.peers.map { ($0.name.unescaped, $0.id) } + remembered.map { ($0.name, $0.id) }
  }

  /// Every pair, this home's own included.
  private var pairs: [(name: String, id: Fingerprint)] {
    others + (own.map { [$0] } ?? [])
  }

  /// The ID this home knows another device's `name` for: a contact's of that name, else the one
  /// it remembered sending to by that name; nil when it knows none. The contact comes first: a
  /// remembered name is only trust on first use, and one remembered before the contact was
  /// made (or by a build before review 17) must not send the contact's items elsewhere. (This
  /// home's own name is no claim on another device: a device elsewhere may well be called the
  /// same.)
  package func id(for name: String) -> Fingerprint? {
    trust.peer(named: name)?.id ?? others.first { Self.sameName($0.name, name) }?.id
  }

  /// The names this home knows `id` by (its own name, if it is this home's ID), without repeats.
  package func names(for id: Fingerprint) -> [String] {
    var names: [String] = []
    for pair in pairs where pair.id == id && !names.contains(where: { Self.sameName($0, pair.name) }) {
      names.append(pair.name)
    }
    return names
  }

  /// Whether `target` (a `--to`) names a share device this home knows: a contact's or a pinned
  /// name (or one that looks like it), or a prefix of such a device's ID. Such a target is never
  /// taken for a LocalSend device that announced the same alias or fingerprint (anyone can).
  package func knowsShareDevice(_ target: String) -> Bool {
    if id(for: target) != nil { return true }
    // LocalSend pins (`localsend:ALIAS`) are LocalSend devices', not share devices'; this device
    // is one (review 15: a LocalSend announcement of its name took a send by that name).
    let shareDevices = others.filter { !$0.name.hasPrefix("localsend:") } + (own.map { [(name: $0.name, id: $0.id)] } ?? [])
    if shareDevices.contains(where: { Self.looksAlike($0.name, target) }) { return true }
    let prefix = target.lowercased()
    return prefix.count >= 4 && prefix.allSatisfy(\.isHexDigit) && shareDevices.contains { $0.id.hex.hasPrefix(prefix) }
  }

  /// The other devices this home knows whose ID starts with `query` (an ID prefix in any
  /// spelling, long enough to be one), each with a name it knows it by.
  package func devices(withIDPrefix query: String) -> [(name: String, id: Fingerprint)] {
    var found: [(name: String, id: Fingerprint)] = []
    for pair in others where pair.id.matches(prefix: query) && !found.contains(where: { $0.id == pair.id }) {
      found.append(pair)
    }
    return found
  }

  /// What a record advertised as `name` with the ID `id` may be shown as.
  package func standing(name: String, id: Fingerprint?) -> Peer.Standing {
    guard let id else { return .new }
    // First: this device's name is never another device's, whatever was remembered for it.
    if let own, own.id != id, Self.looksAlike(own.name, name) { return .takesOwnName }
    // A known device whose name was taken on the link first is advertised with a number
    // (`bob-desk #2`): still that device, as its certificate will have to prove.
    let unnumbered = Self.withoutCollisionNumber(name)
    if pairs.contains(where: { $0.id == id && (Self.sameName($0.name, name) || Self.sameName($0.name, unnumbered)) }) {
      return .known
    }
    if let other = self.id(for: name) { return .nameKnownWith(other) }
    let names = names(for: id)
    if !names.isEmpty { return .claimsIDOf(names) }
    if let similar = others.first(where: { Self.looksAlike($0.name, name) }) { return .looksLike(similar.name) }
    if let similar = pairs.first(where: { $0.id != id && $0.id.short == id.short }) { return .idLooksLike(similar.name) }
    return .new
  }

  /// Whether two names look alike: the same `appearance` as written, or lowercased first. Either
  /// alone misses a pair: an uppercase I is drawn like a lowercase L (`Ivan` and `lvan` look
  /// alike), and is also the uppercase of `i` (`Ivan` and `ivan` are one name apart from case:
  /// review 16 found a stranger called `ivan` got no "NOT your contact Ivan" warning).
  ///
  /// A name with the number Avahi adds when it is taken on the link (`bob-desk #2`: review 18,
  /// a stranger calling itself `bob-desk` beside the contact was advertised so, and nothing
  /// flagged it) looks like the name without it; two numbered names are not alike for that
  /// (`Room #2`, `Room #3`).
  ///
  /// A name with a bracketed part after it looks like the name without it (review 23: a
  /// stranger called itself `alice (60a2fb7ce8a2)`, which share shows as the contact `alice` and
  /// its ID are shown, with its own ID after).
  ///
  /// Names whose letters and digits are the same (`skeleton`) look alike too (review 41:
  /// `alice-pc.`, `alice-pc_`, `alice pc`, `alice-pc…` beside the contact `alice-pc` were listed
  /// as new devices, unmarked, and sent to). A number word after a blank is part of the name
  /// (`laptop 2` is a second laptop, which review 42 found could then never be reached or
  /// trusted by its own name); Avahi's own ` #2` is not.
  package static func looksAlike(_ first: String, _ second: String) -> Bool {
    look(first, second) || look(withoutCollisionNumber(first), second) || look(first, withoutCollisionNumber(second))
      || withoutDecoration(first).map { look($0, second) } == true || withoutDecoration(second).map { look(first, $0) } == true
      || sameSkeleton(first, second)
  }

  /// Whether the two names have the same letters and digits as they look (`skeleton`).
  private static func sameSkeleton(_ first: String, _ second: String) -> Bool {
    guard let one = skeleton(first) else { return false }
    return one == skeleton(second)
  }

  /// `name` as `appearance` draws it, with only its letters and digits: the blanks, dashes,
  /// dots, underscores and other punctuation and symbols an impostor adds or swaps and a reader
  /// passes over. Nil when nothing is left.
  static func skeleton(_ name: String) -> String? {
    let kept = appearance(name).unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
    return kept.isEmpty ? nil : String(String.UnicodeScalarView(kept))
  }

  /// `name` without what follows its first bracket (`alice (60a2fb7ce8a2)`, `bob-desk [x]`,
  /// `alice ﴾x﴿`, `alice (x`, `alice <x>`: any opening, closing or quotation punctuation, `<` or
  /// `>`, or a character named a parenthesis or bracket, as share decorates a name with an ID or
  /// a note), its first separator after a blank (`alice - 60a2fb7ce8a2`, `alice | x`, `alice · x`:
  /// punctuation or symbols up to the next blank), or a last word of eight hex digits or more
  /// after a blank or a dash (`alice 60a2fb7ce8a2`, `alice-60a2fb7ce8a2`: an ID), and the blanks before it; nil when it has
  /// none, or nothing would be left. Read in compatibility form (`alice⑴` is drawn `alice(1)`).
  /// Review 24: an invisible variation selector after the `)`, or ornate parentheses, got past a
  /// rule that wanted a closing bracket last.
  package static func withoutDecoration(_ name: String) -> String? {
    let scalars = Array(name.precomposedStringWithCompatibilityMapping.unicodeScalars)
    guard let start = scalars.indices.dropFirst().first(where: { startsDecoration(scalars, at: $0) }) else { return nil }
    var kept = scalars[..<start]
    while let last = kept.last, last.properties.isWhitespace { kept.removeLast() }
    guard kept.contains(where: { !$0.properties.isWhitespace }) else { return nil }
    return String(String.UnicodeScalarView(Array(kept)))
  }

  /// Whether a decoration starts at `index` (`withoutDecoration`). A quotation mark counts
  /// after a blank only: `Bob’s MacBook` (U+2019, as macOS writes device names) is not `Bob`
  /// decorated.
  private static func startsDecoration(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
    let scalar = scalars[index]
    let afterBlank = scalars[index - 1].properties.isWhitespace
    if isBracketLike(scalar) && (!isQuotation(scalar) || afterBlank) { return true }
    let rest = scalars[index...]
    func isID(_ word: ArraySlice<Unicode.Scalar>) -> Bool {
      word.count >= 8 && word.allSatisfy { $0.isASCII && Character($0).isHexDigit }
    }
    // An ID after a dash (`alice-99683decfbf2`).
    if scalar.properties.generalCategory == .dashPunctuation, isID(rest.dropFirst()) { return true }
    guard afterBlank else { return false }
    let word = rest.prefix { !$0.properties.isWhitespace }
    return word.allSatisfy(isPunctuationOrSymbol) || (word.endIndex == scalars.endIndex && isID(word))
  }

  private static func isPunctuationOrSymbol(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
      .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
      return true
    default: return false
    }
  }

  private static func isQuotation(_ scalar: Unicode.Scalar) -> Bool {
    [.initialPunctuation, .finalPunctuation].contains(scalar.properties.generalCategory)
  }

  private static func isBracketLike(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation: return true
    case _ where scalar == "<" || scalar == ">": return true
    default:
      guard scalar.value > 0x7F, let name = scalar.properties.name else { return false }
      return name.contains("PARENTHESIS") || name.contains("BRACKET")
    }
  }

  private static func look(_ first: String, _ second: String) -> Bool {
    appearance(first) == appearance(second) || appearance(first.lowercased()) == appearance(second.lowercased())
  }

  /// `name` without the ` #N` Avahi adds to a service name taken on the link
  /// (`avahi_alternative_service_name`: `bob-desk` → `bob-desk #2` → `bob-desk #3`); `name`
  /// itself when it has none.
  package static func withoutCollisionNumber(_ name: String) -> String {
    guard let mark = name.range(of: " #", options: .backwards) else { return name }
    let number = name[mark.upperBound...]
    guard !number.isEmpty, number.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return name }
    return String(name[..<mark.lowerBound])
  }

  /// A name as it looks on a screen, for telling look-alikes: compatibility forms folded (NFKC),
  /// invisible characters dropped, marks on Latin letters dropped (`ali\u{307}ce`, `José` →
  /// `jose`), blanks (the braille blank too) at the ends dropped and runs of
  /// them one space, every dash-like character a `-`, the letters of other scripts that look like
  /// Latin ones (either case; Unicode's confusables data, `Confusables.swift`) read as those, `0`
  /// as `o` and `1` and capital `I` as `l`, and letter case aside.
  package static func appearance(_ name: String) -> String {
    var look = String.UnicodeScalarView()
    var blank = false
    for scalar in name.precomposedStringWithCompatibilityMapping.unicodeScalars {
      let properties = scalar.properties
      if properties.isDefaultIgnorableCodePoint || properties.generalCategory == .format { continue }
      // Control characters show as nothing, or as an escape beside the name (review 21:
      // `alice\u{0}` went unwarned beside the contact `alice`); tabs and line breaks are blanks.
      if properties.generalCategory == .control && !properties.isWhitespace { continue }
      // A mark on a Latin letter hides in it or beside it (review 22: `ali\u{307}ce` is drawn as
      // `alice`): the letter is what shows. On other scripts marks are the writing: kept.
      if properties.generalCategory == .nonspacingMark, look.last?.isASCII == true { continue }
      // The Ogham space mark is white space to Unicode and drawn as a dash (review 22).
      if properties.isWhitespace && scalar.value != Self.oghamSpaceMark || scalar.value == Self.brailleBlank {
        blank = !look.isEmpty
        continue
      }
      if blank { look.append(" ") }
      blank = false
      if properties.generalCategory == .dashPunctuation || dashLike.contains(scalar.value) {
        look.append("-")
      } else if let latin = lookalikes[scalar] ?? latinBase(of: scalar) {
        look.append(contentsOf: String(latin).lowercased().unicodeScalars)
      } else {
        look.append(contentsOf: String(scalar).lowercased().unicodeScalars)
      }
    }
    return String(look)
  }

  /// The braille blank (U+2800): a symbol, neither white space nor ignorable, drawn as nothing.
  private static let brailleBlank: UInt32 = 0x2800

  /// U+1680, white space to Unicode, drawn as a dash (`alice\u{1680}send` is `alice-send`).
  private static let oghamSpaceMark: UInt32 = 0x1680

  /// The Latin letter a precomposed letter is drawn on, marks aside (`é` → `e`, `ǐ` → `i`), as a
  /// mark after a Latin letter is dropped; nil for anything else.
  private static func latinBase(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
    guard !scalar.isASCII, scalar.properties.isAlphabetic else { return nil }
    let parts = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
    guard let base = parts.first, base.isASCII, parts.count > 1,
      parts.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
    else { return nil }
    return base
  }

  /// Characters drawn as a hyphen that are not dash punctuation: minus signs, the modifier minus,
  /// the hyphen bullet, heavy minus; and (review 22) horizontal box-drawing lines and scan
  /// lines, the katakana prolonged sound mark, the ideograph and Kangxi radical "one", the
  /// Hangul vowel eu and the CJK horizontal stroke, which Unicode's confusables data relates to
  /// one another but not to `-`.
  private static let dashLike: Set<UInt32> = [
    0x2212, 0x02D7, 0x2043, 0x2796, 0x2011, 0x00AD, oghamSpaceMark,
    0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254C, 0x254D, 0x2574, 0x2576, 0x2578, 0x257A, 0x257C, 0x257E,
    0x23AF, 0x23BA, 0x23BB, 0x23BC, 0x23BD, 0x23E4, 0x30FC, 0xFF70, 0x4E00, 0x2F00, 0x3161, 0xFFDA, 0x1173, 0x31D0,
  ]

  /// Letters and digits that most fonts draw like a Latin letter, to that letter.
  private static let lookalikes: [Unicode.Scalar: Unicode.Scalar] = {
    var table: [Unicode.Scalar: Unicode.Scalar] = ["0": "o", "1": "l", "I": "l", "ı": "i", "ɑ": "a", "ɡ": "g"]
    let groups: [(String, Unicode.Scalar)] = [
      ("аАαΑᴀ", "a"), ("ВΒʙ", "b"), ("сСᴄ", "c"), ("ԁᴅ", "d"), ("еЕεΕᴇ", "e"), ("ɢ", "g"), ("һНΗʜ", "h"),
      ("іІιΙɪ", "i"), ("јЈᴊ", "j"), ("КκΚᴋ", "k"), ("ӏʟ", "l"), ("МΜᴍ", "m"), ("Νɴ", "n"), ("оОοΟᴏ", "o"),
      ("рРρΡᴘ", "p"), ("ԛ", "q"), ("ʀ", "r"), ("ѕЅꜱ", "s"), ("ТτΤᴛ", "t"), ("υᴜ", "u"), ("νᴠ", "v"),
      ("ԝᴡ", "w"), ("хХχΧ", "x"), ("уУΥʏ", "y"), ("Ζᴢ", "z"),
    ]
    for (letters, latin) in groups {
      for letter in letters.unicodeScalars { table[letter] = latin }
    }
    // Then Unicode's confusables (Armenian `օ`, Cherokee `Ꮟ`, Lao zero...: review 13).
    for (looks, characters) in confusableGroups {
      for character in characters.unicodeScalars where table[character] == nil { table[character] = looks }
    }
    return table
  }()

  /// Whether two instance names are the same to DNS: equal but for the case of ASCII letters.
  package static func sameName(_ a: String, _ b: String) -> Bool {
    a == b || (a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) })
  }

  private static func lower(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
  }
}
