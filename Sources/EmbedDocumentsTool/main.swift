import Foundation

// EmbedDocumentsTool OUTPUT NAME PATH [NAME PATH]...: writes OUTPUT, a Swift file holding each
// file's text under its name (`EmbeddedDocuments.files[NAME]`), as raw string literals.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments.count % 2 == 1 else {
  FileHandle.standardError.write(Data("usage: EmbedDocumentsTool OUTPUT NAME PATH [NAME PATH]...\n".utf8))
  exit(64)
}

/// `text` as a raw multi-line string literal: more `#` around it than any run of `#` inside.
func literal(_ text: String) -> String {
  var longest = 0
  var run = 0
  for character in text {
    run = character == "#" ? run + 1 : 0
    longest = max(longest, run)
  }
  let hashes = String(repeating: "#", count: longest + 1)
  return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

var entries: [String] = []
for index in stride(from: 1, to: arguments.count, by: 2) {
  let (name, path) = (arguments[index], arguments[index + 1])
  do {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    entries.append("    \"\(name)\": \(literal(text)),")
  } catch {
    FileHandle.standardError.write(Data("EmbedDocumentsTool: cannot read \(path): \(error)\n".utf8))
    exit(1)
  }
}
let source = """
  // Generated at build time by the EmbedDocuments plugin (Plugins/EmbedDocuments): do not edit.

  /// The repository's Markdown that the man page takes its prose from, by path.
  enum EmbeddedDocuments {
    static let files: [String: String] = [
  \(entries.joined(separator: "\n"))
    ]
  }

  """
do {
  try source.write(toFile: arguments[0], atomically: true, encoding: .utf8)
} catch {
  FileHandle.standardError.write(Data("EmbedDocumentsTool: cannot write \(arguments[0]): \(error)\n".utf8))
  exit(1)
}
