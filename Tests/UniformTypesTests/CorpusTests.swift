import Foundation
import Testing

@testable import UniformTypes

/// One row of Tests/Corpus/expected.tsv: a real file and the verdict the default declarations
/// must give it, written from what the file is (never from share's own output).
struct CorpusRow: Sendable {
  var file: String
  var family: String
  var kind: String
  var accept: Bool
  /// For a refusal: words the reason must contain, naming the real cause ("executable", "script").
  var cause: String?
}

enum Corpus {
  /// Tests/Corpus/expected.tsv, found from this file's path.
  static let table = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Corpus/expected.tsv")

  /// `SHARE_CORPUS` (what scripts/test.sh sets from scripts/corpus.sh), else the folder
  /// scripts/corpus.sh fills by default.
  static var folder: URL {
    let environment = ProcessInfo.processInfo.environment
    if let folder = environment["SHARE_CORPUS"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
    let cache =
      environment["SHARE_CORPUS_CACHE"].map { URL(fileURLWithPath: $0) }
      ?? environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent("share-corpus") }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/share-corpus")
    return cache.appendingPathComponent("files")
  }

  /// Runs when the corpus was gathered, and always when `SHARE_CORPUS` says where it must be
  /// (then a missing corpus fails instead of skipping).
  static var isAvailable: Bool {
    ProcessInfo.processInfo.environment["SHARE_CORPUS"] != nil
      || FileManager.default.fileExists(atPath: folder.appendingPathComponent("hello").path)
  }

  static func rows() throws -> [CorpusRow] {
    let text = try String(contentsOf: table, encoding: .utf8)
    return try text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 7, fields[3] == "accept" || fields[3] == "refuse" else {
        throw CorpusError(message: "malformed row in expected.tsv: \(line)")
      }
      return CorpusRow(
        file: fields[0], family: fields[1], kind: fields[2], accept: fields[3] == "accept",
        cause: fields[4] == "-" ? nil : fields[4])
    }
  }
}

struct CorpusError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

@Suite("Real-world corpus (scripts/corpus.sh)", .enabled(if: Corpus.isAvailable))
struct CorpusTests {
  @Test("the table lists at least 300 files of at least 60 kinds")
  func tableIsLargeEnough() throws {
    let rows = try Corpus.rows()
    #expect(rows.count >= 300)
    #expect(Set(rows.map(\.kind)).count >= 60)
    #expect(Set(rows.map(\.file)).count == rows.count, "a file is listed twice")
  }

  @Test("the default declarations judge every corpus file as the table says, refusals naming the real cause")
  func defaultDeclarationsJudgeTheCorpus() throws {
    let policy = try TypePolicy(registry: .system(), declarations: .builtinDefault)
    let sniffer = try ContentSniffer()
    var tally: [String: (right: Int, wrong: Int)] = [:]
    var misjudged: [String] = []
    for row in try Corpus.rows() {
      let path = Corpus.folder.appendingPathComponent(row.file).path
      let verdict: Verdict
      do {
        verdict = try policy.check(path: path, sniffer: sniffer).verdict
      } catch {
        misjudged.append("\(row.file) (\(row.kind)): cannot be read: \(error)")
        tally[row.family, default: (0, 0)].wrong += 1
        continue
      }
      var problem: String?
      if verdict.accepted != row.accept {
        problem = "expected \(row.accept ? "accepted" : "refused"), got \(verdict.accepted ? "accepted" : "refused")"
      } else if let cause = row.cause, !verdict.reason.lowercased().contains(cause.lowercased()) {
        problem = "refused, but the reason does not name \"\(cause)\""
      }
      if let problem {
        misjudged.append("\(row.file) (\(row.kind)): \(problem): \(verdict.reason) [type \(verdict.type), rule \(verdict.rule.rawValue)]")
        tally[row.family, default: (0, 0)].wrong += 1
      } else {
        tally[row.family, default: (0, 0)].right += 1
      }
    }
    var report = ["corpus: \(Corpus.folder.path)", "family            files  right  wrong"]
    for (family, counts) in tally.sorted(by: { $0.key < $1.key }) {
      report.append(
        family.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%7d%7d%7d", counts.right + counts.wrong, counts.right, counts.wrong))
    }
    report.append("misjudged: \(misjudged.count)")
    report += misjudged.map { "  " + $0 }
    print(report.joined(separator: "\n"))
    for line in misjudged { Issue.record(Comment(rawValue: line)) }
  }
}
