/// An OLE2 file's streams read by name, whole: what an encrypted Office document keeps its
/// package and how it was encrypted in (`EncryptionInfo`, `EncryptedPackage`: MS-OFFCRYPTO).
/// A stream under the mini-stream cutoff lies in 64-byte mini sectors of the root entry's
/// stream, chained by the mini FAT; a larger one in the file's own sectors.
extension CompoundFile.Sectors {
  /// A directory entry: a storage (1), a stream (2) or the root (5), where its chain starts,
  /// and its size.
  struct Entry {
    var name: String
    var type: UInt8
    var start: Int
    var size: Int
    /// Its place in the directory.
    var index: Int
  }

  /// The root entry and the entries called one of `names`, in directory order, at most `limit`
  /// of them (a directory chain is as long as the file allows); only those whose place in the
  /// directory `keep` takes, when given.
  func entries(named names: Set<String>, limit: Int = 4096, keep: ((Int) -> Bool)? = nil) -> [Entry] {
    var found: [Entry] = []
    var index = 0
    forEachSector(inChainFrom: directoryStart) { sector in
      guard let bytes = self.sector(sector) else { return false }
      bytes.withUnsafeBytes { raw in
        for at in stride(from: 0, to: raw.count, by: 128) where found.count < limit {
          defer { index += 1 }
          let type = raw[at + 66]
          guard type == 5 || type == 1 || type == 2 else { continue }
          let name = CompoundFile.entryName(raw, at: at) ?? ""
          // Only the root and the entries asked for count: 4,095 empty storages before the
          // streams asked for hid them when every entry counted (review 35).
          guard type == 5 || names.contains(name), keep?(index) ?? true else { continue }
          found.append(
            Entry(
              name: name, type: type, start: ContentClassifier.le32(raw, at + 116), size: ContentClassifier.le32(raw, at + 120),
              index: index))
        }
      }
      return found.count < limit
    }
    return found
  }

  /// The root entry and the root storage's entries called one of `names`: those Office reads,
  /// as the directory's tree says (review 35: streams of those names in a storage, or listed
  /// before them, were read instead). A directory too large to walk as a tree gives the first
  /// entries of those names, as `entries(named:)`.
  func rootEntries(named names: Set<String>) -> [Entry] {
    var links: [UInt32] = []
    var count = 0
    forEachSector(inChainFrom: directoryStart) { sector in
      guard let bytes = self.sector(sector) else { return false }
      bytes.withUnsafeBytes { raw in
        for at in stride(from: 0, to: raw.count, by: 128) {
          if count < CompoundFile.maxTreeEntries { CompoundFile.appendLinks(raw, at: at, to: &links) }
          count += 1
        }
      }
      return true
    }
    guard let tree = CompoundFile.rootChildren(links, entries: count) else { return entries(named: names) }
    return entries(named: names) { $0 == 0 || tree.children.contains($0) }
  }

  /// The stream `entry`'s bytes, whole; nil when it is larger than `limit`, or the file ends
  /// or its chain breaks before its size.
  func stream(_ entry: Entry, root: Entry?, limit: Int) -> [UInt8]? {
    guard entry.size >= 0, entry.size <= limit else { return nil }
    if entry.size < miniStreamCutoff {
      guard let root, let container = chainBytes(from: root.start, size: root.size, limit: limit + (64 << 10)) else { return nil }
      return miniStream(from: entry.start, size: entry.size, in: container)
    }
    return chainBytes(from: entry.start, size: entry.size, limit: limit)
  }

  /// `size` bytes from the sectors of the chain from `start`.
  private func chainBytes(from start: Int, size: Int, limit: Int) -> [UInt8]? {
    guard size >= 0, size <= limit else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    forEachSector(inChainFrom: start) { sector in
      guard bytes.count < size, let data = self.sector(sector) else { return false }
      bytes += data.prefix(size - bytes.count)
      return bytes.count < size
    }
    return bytes.count == size ? bytes : nil
  }

  /// `size` bytes of the mini stream `container`, from the mini sectors chained from `start`
  /// by the mini FAT.
  private func miniStream(from start: Int, size: Int, in container: [UInt8]) -> [UInt8]? {
    let miniFAT = chainBytes(from: miniFATStart, size: min(miniFATSectors, self.bytes.count >> shift) << shift, limit: 16 << 20) ?? []
    var stream: [UInt8] = []
    var sector = start
    var steps = 0
    while stream.count < size, steps <= container.count / 64, sector <= 0xFFFF_FFFA {
      let offset = sector * 64
      guard offset + 64 <= container.count else { return nil }
      stream += container[offset..<(offset + min(64, size - stream.count))]
      guard 4 * sector + 4 <= miniFAT.count else { break }
      sector = miniFAT.withUnsafeBytes { ContentClassifier.le32($0, 4 * sector) }
      steps += 1
    }
    return stream.count == size ? stream : nil
  }
}
