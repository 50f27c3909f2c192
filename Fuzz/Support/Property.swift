#if canImport(Glibc)
  import Glibc
#endif

/// Checks a property of the code under test. A violation prints what was expected and aborts,
/// which libFuzzer reports as a crash and saves the input that caused it (`crash-…`).
///
/// `knownIssue` marks a violation that is already reported and not fixed yet (as a test wraps
/// one in `withKnownIssue`): it is printed the first time and counted, not fatal, so a run keeps
/// looking for new bugs and the test command stays green. `FUZZ_STRICT=1` makes it fatal again;
/// whoever fixes it removes the mark, and the fuzzer then proves the fix.
///
/// `precondition` would do, but its message is dropped in optimised builds, and fuzzers are
/// built optimised for speed.
func require(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, knownIssue: String? = nil,
  file: StaticString = #fileID, line: UInt = #line
) {
  guard !condition() else { return }
  let text = "property violated at \(file):\(line): \(message())"
  if let knownIssue, !strict {
    KnownIssues.hit(knownIssue, first: text)
    return
  }
  say(text)
  abort()
}

private let strict = getenv("FUZZ_STRICT").map { String(cString: $0) == "1" } ?? false

/// Known issues hit during this run, reported at exit.
private enum KnownIssues {
  nonisolated(unsafe) static var counts: [String: Int] = [:]
  nonisolated(unsafe) static var registered = false

  /// libFuzzer runs inputs on one thread, so these statics are never touched concurrently.
  static func hit(_ issue: String, first text: String) {
    if counts[issue] == nil {
      say("known issue (\(issue)), not fatal: \(text)")
      if !registered {
        registered = true
        atexit {
          for (issue, count) in KnownIssues.counts.sorted(by: { $0.key < $1.key }) {
            say("known issue (\(issue)) hit by \(count) inputs")
          }
        }
      }
    }
    counts[issue, default: 0] += 1
  }
}

private func say(_ text: String) {
  let line = Array((text + "\n").utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The input as a byte array.
func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
  guard let data, size > 0 else { return [] }
  return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Whether `text` holds a character that must never reach a terminal raw: C0 controls, DEL,
/// C1 controls, and invisible bidirectional controls.
func hasTerminalControls(_ text: String) -> Bool {
  text.unicodeScalars.contains { scalar in
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
    default: return false
    }
  }
}

/// Splits `input` at every `separator` byte: one fuzz input that carries several values.
func parts(_ input: [UInt8], separator: UInt8 = 0xFF) -> [[UInt8]] {
  input.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
}
