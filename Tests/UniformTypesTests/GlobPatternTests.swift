import Foundation
import Glibc
import Testing

@testable import UniformTypes

/// shared-mime-info's wildcard patterns are cut short by their literal start and end before
/// fnmatch(3) is called: the answer must be fnmatch's own, for every pattern and name.
@Suite struct GlobPatternTests {
  static let names = [
    "f0.bin", "README", "readme.md", "ReadMe.txt", "makefile", "Makefile.am", "makefile.in", "libx.so.1", "libx.so.1.2",
    "libx.so", "x.anim1", "x.animj", "x.anim", "notes~", "~", "core", "file,v", ",v", "x%", "%", "123.vdr", "12a.vdr",
    ".vdr", "sconscript.py", "sconscript", "page.1", "page.10", "x.[1-9]", "CMakeLists.txt", "a", "", "ü.1", "naïve~",
  ]

  static func patterns() throws -> [SharedMimeInfo.Pattern] {
    let info = try #require(SharedMimeInfo(directory: TypeRegistry.defaultMIMEDirectory.path))
    return info.patterns
      + ["*.so.[0-9]*", "[0-9][0-9][0-9].vdr", "a\\*b*", "*[abc", "x]y*", "*"].map {
        SharedMimeInfo.Pattern(SharedMimeInfo.Glob(weight: 50, mimeType: "x/y", pattern: $0, caseSensitive: true))
      }
  }

  @Test func everyPatternAnswersAsFnmatchDoes() throws {
    let patterns = try Self.patterns()
    #expect(patterns.count > 10)
    for pattern in patterns {
      for name in Self.names + ["a*b", "a\\*bc", "q[abc", "x]yz"] {
        let expected = fnmatch(pattern.glob.pattern, name, 0) == 0
        #expect(pattern.matches(Array(name.utf8), Array(name.utf8CString)) == expected, "\(pattern.glob.pattern) ~ \(name)")
      }
    }
  }
}
