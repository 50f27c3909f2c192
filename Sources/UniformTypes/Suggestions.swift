/// "Did you mean" for misspelt keys and identifiers.
package enum Suggestions {
  /// The candidate closest to `word` by case-insensitive edit distance, when within a third
  /// of the word's length (at least 2 edits allowed); nil otherwise.
  package static func closest<S: Sequence<String>>(to word: String, among candidates: S) -> String? {
    let target = Array(word.lowercased().unicodeScalars)
    guard target.count <= 256 else { return nil }
    let limit = max(2, target.count / 3)
    var best: (String, Int)?
    for candidate in candidates {
      let distance = editDistance(target, Array(candidate.lowercased().unicodeScalars))
      if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
    }
    return best?.0
  }

  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
