import UniformTypes

/// The result of parsing one command line against a `CommandSpec`.
struct ParsedArguments: Sendable {
  var spec: CommandSpec
  private(set) var values: [String: [String]] = [:]
  private(set) var flags: Set<String> = []
  private(set) var positionals: [String] = []

  init(spec: CommandSpec) { self.spec = spec }

  /// Whether a flag (by long name) was given.
  func flag(_ long: String) -> Bool { flags.contains(long) }
  /// The last value given for an option.
  func value(_ long: String) -> String? { values[long]?.last }
  /// Every value given for a repeatable option.
  func all(_ long: String) -> [String] { values[long] ?? [] }

  /// A value parsed as an integer in a range, or a usage error naming the option.
  func integer(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(long) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError("\(long) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", spec: spec)
    }
    return number
  }

  /// Parses `arguments` (the words after the command's name).
  static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments(spec: spec)
    let options = spec.options + globalOptions
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let word = arguments[index]
      index += 1
      if onlyPositionals || word == "-" || !word.hasPrefix("-") {
        parsed.positionals.append(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      var name = word
      var inlineValue: String? = nil
      if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
        name = String(word[..<equals])
        inlineValue = String(word[word.index(after: equals)...])
      }
      guard let option = options.first(where: { $0.long == name || $0.short == name }) else {
        var message = "unknown option '\(name)'"
        if let suggestion = closest(to: name, among: options.flatMap { [$0.long] + ($0.short.map { [$0] } ?? []) }) {
          message += "; did you mean '\(suggestion)'?"
        }
        throw UsageError(message, spec: spec)
      }
      if option.value == nil {
        guard inlineValue == nil else { throw UsageError("\(option.long) takes no value", spec: spec) }
        parsed.flags.insert(option.long)
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard index < arguments.count else {
          throw UsageError("\(option.long) needs a value (\(option.value ?? "VALUE"))", spec: spec)
        }
        value = arguments[index]
        index += 1
      }
      if !option.repeatable, parsed.values[option.long] != nil {
        throw UsageError("\(option.long) was given more than once", spec: spec)
      }
      parsed.values[option.long, default: []].append(value)
    }
    if !parsed.flag("--help") {
      let count = parsed.positionals.count
      if count < spec.arguments.lowerBound {
        throw UsageError(count == 0 ? "missing arguments" : "too few arguments", spec: spec)
      }
      if count > spec.arguments.upperBound {
        let extra = parsed.positionals[spec.arguments.upperBound]
        throw UsageError("unexpected argument '\(extra)'", spec: spec)
      }
    }
    return parsed
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
