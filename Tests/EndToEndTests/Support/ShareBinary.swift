import Foundation
import Glibc

/// A failure of the test harness itself (not of the product), with a sentence saying why.
struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The built `share` executable these tests run.
enum ShareBinary {
  /// Where it may be: beside the test bundle (SwiftPM puts every product of a build in one
  /// folder), else in this package's `.build/debug`.
  static var candidates: [URL] {
    var urls: [URL] = []
    if let first = CommandLine.arguments.first {
      let bundle = URL(fileURLWithPath: first).standardizedFileURL
      urls.append(bundle.deletingLastPathComponent().appendingPathComponent("share"))
    }
    // #filePath is <package>/Tests/EndToEndTests/Support/ShareBinary.swift.
    let package = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    urls.append(package.appendingPathComponent(".build/debug/share"))
    return urls
  }

  /// The first candidate that is an executable file.
  static let url: URL? = candidates.first { access($0.path, X_OK) == 0 }

  /// The binary, or an error that says where it was looked for.
  static func require() throws -> URL {
    guard let url else {
      throw HarnessError(
        "the 'share' binary was not found (looked at \(candidates.map(\.path).joined(separator: ", "))); run 'swift build --build-tests' first"
      )
    }
    return url
  }
}
