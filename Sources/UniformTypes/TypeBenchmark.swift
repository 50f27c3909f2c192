import Foundation

/// Measures the costs of classification, for a bench script (`share` can expose it, or a test
/// prints it). Not used on any hot path.
package enum TypeBenchmark {
  /// Figures in microseconds, medians of several rounds.
  package struct Figures: Sendable, Codable, CustomStringConvertible {
    /// Building a registry from scratch: built-ins plus parsing shared-mime-info.
    package var registryLoadMicroseconds: Double
    /// `TypePolicy.init` with the default declarations on that registry.
    package var policyBuildMicroseconds: Double
    /// `ContentSniffer.init` (magic_open + magic_load of the compiled database).
    package var snifferLoadMicroseconds: Double
    /// One name-stage `judge(name:kind:)`, averaged over a mix of names.
    package var nameJudgeMicroseconds: Double
    /// One content judgement (libmagic MIME + description, classifier, rules), per sample.
    package var contentJudgeMicroseconds: [String: Double]
    /// The head length used.
    package var headLength: Int

    package var description: String {
      var lines = [
        String(format: "registry load (built-ins + shared-mime-info): %.0f µs", registryLoadMicroseconds),
        String(format: "policy build (default declarations): %.0f µs", policyBuildMicroseconds),
        String(format: "sniffer load (magic_open + magic_load): %.0f µs", snifferLoadMicroseconds),
        String(format: "name judgement: %.2f µs per name", nameJudgeMicroseconds),
      ]
      for (sample, micros) in contentJudgeMicroseconds.sorted(by: { $0.key < $1.key }) {
        lines.append(String(format: "content judgement, %@: %.1f µs", sample, micros))
      }
      return lines.joined(separator: "\n")
    }
  }

  /// Runs the measurements; `iterations` per name/content sample round.
  /// - Throws: `ContentSnifferError` when libmagic cannot be loaded.
  package static func run(iterations: Int = 500, mimeDirectory: URL = TypeRegistry.defaultMIMEDirectory) throws -> Figures {
    let clock = ContinuousClock()
    func micros(_ duration: Duration) -> Double {
      Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    var loads: [Double] = []
    var registry = TypeRegistry.builtinOnly
    for _ in 0..<7 {
      let start = clock.now
      registry = TypeRegistry.load(mimeDirectory: mimeDirectory)
      loads.append(micros(clock.now - start))
    }
    var builds: [Double] = []
    var policy = try TypePolicy(registry: registry, declarations: .builtinDefault)
    for _ in 0..<7 {
      let start = clock.now
      policy = try TypePolicy(registry: registry, declarations: .builtinDefault)
      builds.append(micros(clock.now - start))
    }
    var snifferLoads: [Double] = []
    var sniffer = try ContentSniffer()
    for _ in 0..<3 {
      let start = clock.now
      sniffer = try ContentSniffer()
      snifferLoads.append(micros(clock.now - start))
    }

    let names = [
      "photo.JPG", "report.pdf", "notes.txt", "archive.tar.gz", "setup.sh", "Makefile", "README",
      "slides.pptx", "song.mp3", "clip.mp4", "evil.desktop", "tool.AppImage", "data.xyz", "x.so.1",
      "payload.png.exe", String(repeating: "long-name.", count: 100) + "docx",
    ]
    var nameRounds: [Double] = []
    for _ in 0..<5 {
      let start = clock.now
      for _ in 0..<iterations {
        for name in names { _ = policy.judge(name: name, kind: .file) }
      }
      nameRounds.append(micros(clock.now - start) / Double(iterations * names.count))
    }

    var contentFigures: [String: Double] = [:]
    for (sample, (name, head)) in samples() {
      var rounds: [Double] = []
      for _ in 0..<5 {
        let start = clock.now
        for _ in 0..<max(1, iterations / 5) {
          _ = policy.judge(name: name, head: head, totalSize: Int64(head.count), sniffer: sniffer)
        }
        rounds.append(micros(clock.now - start) / Double(max(1, iterations / 5)))
      }
      contentFigures[sample] = median(rounds)
    }
    return Figures(
      registryLoadMicroseconds: median(loads), policyBuildMicroseconds: median(builds),
      snifferLoadMicroseconds: median(snifferLoads), nameJudgeMicroseconds: median(nameRounds),
      contentJudgeMicroseconds: contentFigures, headLength: ContentSniffer.headLength)
  }

  /// Heads of typical items, built in memory (and /bin/true for an ELF).
  private static func samples() -> [String: (String, [UInt8])] {
    var result: [String: (String, [UInt8])] = [:]
    let png: [UInt8] = [
      0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xDE,
    ]
    result["PNG header"] = ("photo.png", png)
    let text = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 1500).utf8)
    result["64 KiB of English text"] = ("notes.txt", Array(text.prefix(ContentSniffer.headLength)))
    result["shell script"] = ("run.txt", Array("#!/bin/sh\necho hello\nexit 0\n".utf8))
    if let elf = FileManager.default.contents(atPath: "/bin/true") {
      result["ELF (/bin/true) named .png"] = ("photo.png", Array(elf.prefix(ContentSniffer.headLength)))
    }
    var random = SystemRandomNumberGenerator()
    result["64 KiB random bytes"] = ("blob", (0..<ContentSniffer.headLength).map { _ in UInt8.random(in: 0...255, using: &random) })
    return result
  }
}
