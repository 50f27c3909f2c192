@testable import UniformTypes

/// Fuzzes the package readers that judge a complete item: a ZIP's central directory
/// (`ZipDirectory`), the walk of its local headers, the parts they lead to (`[Content_Types].xml`
/// and `.rels`, inflated), and an OLE2 file read whole through its FAT, DIFAT and chains
/// (`CompoundFile.macros(inWhole:)`); the input is the whole item, the first half of it the head.
///
/// Properties:
/// - nothing traps, whatever offsets, sizes and chains the bytes claim;
/// - a listing keeps at most its bounds of entries, and says so when it dropped any;
/// - reading the whole item never loses a finding of code: content the head alone shows to act
///   when opened (macro-enabled, a program, an installer) does so with all of it there too;
/// - every refinement (evidence shown to people) is free of raw control characters.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzPackages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let item = bytes(data, size)
  item.withUnsafeBytes { all in
    let whole = ItemBytes(all)
    if let listing = ZipDirectory.listing(of: whole) {
      require(
        listing.entries.count <= ZipDirectory.keptTelling + ZipDirectory.keptOthers + 1, "listing kept \(listing.entries.count)")
    }
    let head = Array(item.prefix(max(1, item.count / 2)))
    for mime in ["application/zip", "application/octet-stream", "application/vnd.ms-excel"] {
      let magic = MagicResult(mimeType: mime, description: "")
      let early = ContentClassifier.classify(head: head, truncated: head.count < item.count, magic: magic, registry: registry)
      let complete = ContentClassifier.classify(
        head: head, truncated: head.count < item.count, magic: magic, registry: registry, whole: whole)
      if isActive(early.type) {
        require(isActive(complete.type), "the head showed \(early.type), all of it \(complete.type)")
      }
      for refinement in [early.refinement, complete.refinement].compactMap({ $0 }) {
        require(!hasTerminalControls(refinement), "raw control character in \(refinement.debugDescription)")
      }
    }
  }
  return 0
}

private let registry = TypeRegistry.builtinOnly

private func isActive(_ type: TypeIdentifier) -> Bool {
  TypePolicy.activeKinds.contains { registry.conforms(type, to: $0) }
}
