extension Escaping {
  /// The zero-width joiner and non-joiner between two characters of the writing systems that
  /// need them (Arabic and Persian `می‌خواهم`, Syriac, the Indic scripts' conjuncts, Myanmar,
  /// Khmer) or of an emoji sequence (👨‍👩‍👧): kept. Anywhere else — next to an ASCII character
  /// (`invoice\u{200D}.pdf`), between two CJK ideographs (`日\u{200D}本` would look like `日本`),
  /// next to anything invisible — they only hide: InboxName stores them as `_`, and `escaped` shows
  /// them as `\u{200D}`.
  package static func isJoiner(_ scalar: Unicode.Scalar, between before: Unicode.Scalar, _ after: Unicode.Scalar) -> Bool {
    guard scalar.value == 0x200C || scalar.value == 0x200D else { return false }
    func joins(_ neighbour: Unicode.Scalar) -> Bool {
      switch neighbour.value {
      case 0x0600...0x08FF, 0x0900...0x0DFF, 0x1000...0x109F, 0x1780...0x17FF, 0xFB50...0xFDFF, 0xFE70...0xFEFE: true
      case 0x1F3FB...0x1F3FF: true  // a skin tone
      default: !neighbour.isASCII && neighbour.properties.isEmoji && !isVariationSelector(neighbour)
      }
    }
    // An emoji's presentation selector may come before (❤️‍🔥), never after.
    return (joins(before) || before.value == 0xFE0F) && joins(after)
  }

  /// How many scalars after `index` are the tag characters of a subdivision flag that starts
  /// there: 🏴 followed by `gbeng`, `gbsct` or `gbwls` in tag letters and a cancel tag (England's,
  /// Scotland's and Wales's flags, the only ones Unicode recommends showing), kept as they are;
  /// 0 for anything else. Other tag characters only hide: stored as `_`, shown escaped.
  package static func flagTagCount(_ scalars: [Unicode.Scalar], at index: Int) -> Int {
    guard scalars[index].value == 0x1F3F4, index + 6 < scalars.count else { return 0 }
    let tags = scalars[(index + 1)...(index + 6)].map(\.value)
    guard tags.last == 0xE007F else { return 0 }
    let letters = String(String.UnicodeScalarView(tags.dropLast().compactMap { Unicode.Scalar($0 &- 0xE0000) }))
    return ["gbeng", "gbsct", "gbwls"].contains(letters) && tags.dropLast().allSatisfy { $0 >= 0xE0061 && $0 <= 0xE007A } ? 6 : 0
  }

  /// The variation selectors (emoji and text presentation, the standardized and ideographic
  /// ones, Mongolian's free variation selectors).
  package static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: true
    default: false
    }
  }
}
