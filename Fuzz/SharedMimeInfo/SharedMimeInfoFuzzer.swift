import Foundation
import Glibc

@testable import UniformTypes

/// Fuzzes the shared-mime-info reader (`SharedMimeInfo`): `globs2`, `subclasses` and `aliases`
/// as found under /usr/share/mime (any package, or a user's ~/.local/share/mime, can add to them),
/// and the type registry built on them.
///
/// The input is the three files' contents separated by 0xFF bytes (never in UTF-8 text); a part
/// that is absent is a missing file.
///
/// Properties:
/// - the database exists exactly when one of the files does;
/// - every type it maps a name to is a type it knows, and well formed (`type/subtype`, lower case);
/// - a literal pattern's own name, and `x.EXT` for a `*.EXT` pattern, find a type;
/// - no type is its own parent or alias;
/// - the registry built on it gives every probe name a known type identifier (inputs up to 1 KiB).
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzSharedMimeInfo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let files = parts(bytes(data, size))
  for (index, name) in ["globs2", "subclasses", "aliases"].enumerated() {
    let path = directory + "/" + name
    unlink(path)
    if index < files.count { write(files[index], to: path) }
  }
  guard let database = SharedMimeInfo(directory: directory) else {
    require(files.isEmpty, "no database although \(files.count) files exist")
    return 0
  }
  for glob in Array(database.literals.values) + Array(database.extensions.values) + database.patterns.map(\.glob) {
    require(database.knownTypes.contains(glob.mimeType), "\(glob.mimeType) is mapped to but not known")
    require(wellFormed(glob.mimeType), "malformed type \(glob.mimeType.debugDescription)")
  }
  for (name, glob) in database.literals where !name.isEmpty && !name.contains("/") {
    require(database.mimeType(forBaseName: name) != nil, "literal \(name.debugDescription) (\(glob.mimeType)) finds no type")
  }
  for (ext, glob) in database.extensions where !ext.isEmpty {
    let probe = "x." + ext
    require(database.mimeType(forBaseName: probe) != nil, "\(probe.debugDescription) (\(glob.mimeType)) finds no type")
  }
  for (child, parents) in database.subclasses {
    require(!parents.contains(child), "\(child) is its own parent")
  }
  for (alias, canonical) in database.aliases {
    require(alias != canonical, "\(alias) is its own alias")
    _ = database.aliases(of: canonical)
  }
  var probes = ["photo.JPG", "archive.tar.gz", ".bashrc", "README", "x.", "a.b.c.d.e.f", "Makefile"]
  probes += database.literals.keys.prefix(4)
  probes += database.patterns.prefix(4).map { $0.glob.pattern.replacingOccurrences(of: "*", with: "x") }
  for probe in probes {
    if let type = database.mimeType(forBaseName: probe) {
      require(database.knownTypes.contains(type), "\(probe.debugDescription) gives unknown \(type)")
      _ = database.extensions(for: type)
    }
  }
  // Building a registry re-indexes every built-in type (a few ms under ASan): done for small
  // inputs only, which is where libFuzzer spends most of its time anyway.
  guard size <= 1024 else { return 0 }
  let registry = TypeRegistry.load(mimeDirectory: URL(fileURLWithPath: directory))
  for probe in probes {
    let type = registry.type(forFilename: probe)
    require(registry.isKnown(type), "the registry gives \(probe.debugDescription) the unknown type \(type)")
  }
  return 0
}

/// A folder of this process's own for the three files.
private let directory: String = {
  var template = Array("/tmp/share-fuzz-mime-XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
  atexit {
    for name in ["globs2", "subclasses", "aliases"] { unlink(directory + "/" + name) }
    rmdir(directory)
  }
  return String(cString: made)
}()

private func write(_ contents: [UInt8], to path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  require(fd >= 0, "cannot create \(path)")
  var offset = 0
  while offset < contents.count {
    let n = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
    guard n > 0 else { break }
    offset += n
  }
  close(fd)
}

private func wellFormed(_ type: String) -> Bool {
  let parts = type.split(separator: "/", omittingEmptySubsequences: false)
  return parts.count == 2 && parts.allSatisfy { !$0.isEmpty } && type == type.lowercased()
}
