import ShareKit

/// The result of parsing one command line against a `CommandSpec`. Options are looked up by
/// their declaration (`arguments[Self.json]`), never by a string.
struct ParsedArguments: Sendable {
  var spec: CommandSpec
  private(set) var values: [String: [String]] = [:]
  private(set) var flags: Set<String> = []
  private(set) var positionals: [String] = []

  init(spec: CommandSpec) { self.spec = spec }

  /// Whether a flag was given.
  subscript(_ flag: Flag) -> Bool {
    declared(flag)
    return flags.contains(flag.spec.long)
  }

  /// The last value given for an option.
  subscript(_ option: Option) -> String? {
    declared(option)
    return values[option.spec.long]?.last
  }

  /// Every value given for a repeatable option, in order.
  func all(_ option: Option) -> [String] {
    declared(option)
    return values[option.spec.long] ?? []
  }

  /// A value parsed as an integer in a range, or a usage error naming the option.
  func integer(_ option: Option, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = self[option] else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError(
        "\(option.spec.long) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", spec: spec)
    }
    return number
  }

  /// A value parsed as a duration (`90s`, `10m`, `1h`, `1h30m`; a bare number counts in
  /// `bare`) within `range`, in seconds; or a usage error naming the option and the bare unit.
  func duration(_ option: Option, bare: DurationUnit, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
    guard let text = self[option] else { return nil }
    guard let seconds = parseDuration(text, bareUnit: bare.seconds), range.contains(seconds) else {
      throw UsageError(
        "\(option.spec.long) takes a duration such as 90s, 10m or 1h (a bare number is \(bare.name)) from "
          + "\(DurationUnit.format(range.lowerBound)) to \(DurationUnit.format(range.upperBound)), not '\(escape(text))'",
        spec: spec)
    }
    return seconds
  }

  /// Looking up an option the command does not declare is a programmer error.
  private func declared(_ option: some OptionDeclaration) {
    assert(spec.accepts(option.spec), "'share \(spec.name)' does not declare \(option.spec.long)")
  }

  /// Parses `arguments` (the words after the command's name).
  static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments(spec: spec)
    var words = arguments[...]
    var onlyPositionals = false
    while let word = words.popFirst() {
      if onlyPositionals || word == "-" || !word.hasPrefix("-") {
        parsed.positionals.append(word)
      } else if word == "--" {
        onlyPositionals = true
      } else {
        try parsed.take(option: word, from: &words)
      }
    }
    if !parsed[GlobalOptions.help] { try parsed.checkPositionalCount() }
    return parsed
  }

  /// Takes one option word (and its value, inline after `=` or the next word).
  private mutating func take(option word: String, from words: inout ArraySlice<String>) throws(UsageError) {
    var name = word
    var inlineValue: String? = nil
    if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
      name = String(word[..<equals])
      inlineValue = String(word[word.index(after: equals)...])
    }
    let options = spec.allOptions
    guard let option = options.first(where: { $0.names.contains(name) }) else {
      if name.utf8.count > 1, name.utf8.dropFirst().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
        throw UsageError("'\(name)' is not an option; no number on share's command line is negative", spec: spec)
      }
      var message = "unknown option '\(name)'"
      if let suggestion = closest(to: name, among: options.flatMap(\.names)) { message += "; did you mean '\(suggestion)'?" }
      throw UsageError(message, spec: spec)
    }
    guard let placeholder = option.placeholder else {
      guard inlineValue == nil else { throw UsageError("\(option.long) takes no value", spec: spec) }
      flags.insert(option.long)
      return
    }
    guard let value = inlineValue ?? words.popFirst() else {
      throw UsageError("\(option.long) needs a value (\(placeholder))", spec: spec)
    }
    // `--to --home DIR` took `--home` as the peer and DIR as a file to send (review 26).
    if inlineValue == nil, value.hasPrefix("-"), options.contains(where: { $0.names.contains(String(value.prefix { $0 != "=" })) }) {
      throw UsageError(
        "\(option.long) needs a value (\(placeholder)), not the option '\(value)'; for a value that starts with '-', write \(option.long)=VALUE",
        spec: spec)
    }
    // An empty path is not "no path" (review 23: `--home ""`, an unset variable's, used the
    // default home and made an identity there).
    if value.isEmpty, option.kind == .directory || option.kind == .path {
      throw UsageError("\(option.long) needs a \(placeholder), not an empty value", spec: spec)
    }
    if !option.repeatable, values[option.long] != nil {
      throw UsageError("\(option.long) was given more than once", spec: spec)
    }
    values[option.long, default: []].append(value)
  }

  private func checkPositionalCount() throws(UsageError) {
    let count = positionals.count
    if count < spec.arguments.lowerBound {
      throw UsageError(count == 0 ? "missing arguments" : "too few arguments", spec: spec)
    }
    if count > spec.arguments.upperBound {
      throw UsageError("unexpected argument '\(positionals[spec.arguments.upperBound])'", spec: spec)
    }
  }
}

/// What a bare number means in a duration option.
enum DurationUnit: Sendable {
  case seconds
  case minutes

  var seconds: Double { self == .seconds ? 1 : 60 }
  var name: String { self == .seconds ? "seconds" : "minutes" }

  /// A whole number of seconds as the largest unit that divides it: `90s`, `10m`, `2h`, `1d`.
  static func format(_ seconds: Double) -> String {
    let whole = Int(seconds)
    for (size, unit) in [(86400, "d"), (3600, "h"), (60, "m")] where whole >= size && whole % size == 0 {
      return "\(whole / size)\(unit)"
    }
    return "\(whole)s"
  }
}

/// A mistake in how a command was called: printed as `Error: …` and `Usage: …`, exit 64.
struct UsageError: Error, Sendable {
  var message: String
  var spec: CommandSpec?

  init(_ message: String, spec: CommandSpec?) {
    self.message = message
    self.spec = spec
  }
}

/// `text` as one of a closed set of words (`ReceiveMode`); otherwise a usage error that starts
/// with `what` ("the mode is"), lists the words, and suggests the nearest one.
func choice<Value: CaseIterable & RawRepresentable>(
  _ text: String, as: Value.Type, what: String, spec: CommandSpec
) throws(UsageError) -> Value where Value.RawValue == String {
  if let value = Value(rawValue: text) { return value }
  let words = Value.allCases.map(\.rawValue)
  let listed = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "") : words.joined()
  var message = "\(what) \(listed), not '\(escape(text))'"
  if let suggestion = closest(to: text, among: words) { message += "; did you mean '\(suggestion)'?" }
  throw UsageError(message, spec: spec)
}

/// The candidate nearest to `word`, when near enough to be a likely typo.
func closest(to word: String, among candidates: [String]) -> String? {
  Suggestions.closest(to: word, among: candidates)
}
