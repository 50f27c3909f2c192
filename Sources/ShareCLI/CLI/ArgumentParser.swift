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

/// A mistake in how a command was called: printed as `Error: …` and `Usage: …`, exit 64.
struct UsageError: Error, Sendable {
  var message: String
  var spec: CommandSpec?

  init(_ message: String, spec: CommandSpec?) {
    self.message = message
    self.spec = spec
  }
}

/// The candidate nearest to `word`, when near enough to be a likely typo.
func closest(to word: String, among candidates: [String]) -> String? {
  Suggestions.closest(to: word, among: candidates)
}
