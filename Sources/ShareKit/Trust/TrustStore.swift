import Foundation
import TLS

/// A peer this home trusts (a contact): identified by its certificate fingerprint.
public struct TrustedPeer: Codable, Sendable, Equatable {
  public var id: Fingerprint
  /// A name the owner gave it (or its device name when added).
  public var name: String
  public var addedAt: Date
  /// Whether an ask from this peer still waits for the person (false: accepted without asking).
  public var ask: Bool

  public init(id: Fingerprint, name: String, addedAt: Date = Date(), ask: Bool = false) {
    self.id = id
    self.name = name
    self.addedAt = addedAt
    self.ask = ask
  }
}

/// The home's contacts (`trust.json`, owner-only), written atomically.
///
/// A value: load, change, save. Several processes may change it (`share trust` while the daemon
/// runs); each save replaces the file whole, and the daemon re-reads it on SIGHUP or when told
/// over its control socket.
public struct TrustStore: Sendable, Equatable {
  public private(set) var peers: [TrustedPeer]
  public let url: URL

  private struct File: Codable {
    var peers: [TrustedPeer]
  }

  /// Reads the store; a missing file is an empty store, a broken one an error.
  public static func load(from url: URL) throws(ShareError) -> TrustStore {
    guard let data = FileManager.default.contents(atPath: url.path) else { return TrustStore(peers: [], url: url) }
    do {
      let file = try decoder.decode(File.self, from: data)
      return TrustStore(peers: file.peers, url: url)
    } catch {
      throw .configuration("\(url.path) is not a valid trust store: \(error.localizedDescription)")
    }
  }

  /// The entry for a fingerprint.
  public func peer(_ id: Fingerprint) -> TrustedPeer? { peers.first { $0.id == id } }

  /// Whether a fingerprint is a contact.
  public func trusts(_ id: Fingerprint) -> Bool { peer(id) != nil }

  /// Adds or updates a contact.
  public mutating func add(_ peer: TrustedPeer) {
    if let index = peers.firstIndex(where: { $0.id == peer.id }) {
      peers[index] = peer
    } else {
      peers.append(peer)
    }
  }

  /// Removes the contacts matching an ID prefix (at least 4 hex digits) or a name; returns them.
  @discardableResult
  public mutating func remove(matching query: String) -> [TrustedPeer] {
    let matches = self.matches(query)
    peers.removeAll { peer in matches.contains { $0.id == peer.id } }
    return matches
  }

  /// Contacts whose name equals `query` or whose ID starts with it.
  public func matches(_ query: String) -> [TrustedPeer] {
    peers.filter { $0.name == query || $0.id.matches(prefix: query) }
  }

  /// Writes the store (temp file, fsync, rename), owner-only.
  public func save() throws(ShareError) {
    do {
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                              attributes: [.posixPermissions: 0o700])
      let data = try TrustStore.encoder.encode(File(peers: peers))
      try writeAtomically(data, to: url)
    } catch let error as ShareError {
      throw error
    } catch {
      throw .configuration("cannot write \(url.path): \(error.localizedDescription)")
    }
  }

  static let encoder = JSONCoding.encoder(pretty: true)
  static let decoder = JSONCoding.decoder()
}

/// Writes `data` to `url` through a temporary file in the same folder, synced, then renamed
/// over the old file; owner-only.
func writeAtomically(_ data: Data, to url: URL) throws {
  let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
  guard FileManager.default.createFile(atPath: temp.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
    throw ShareError.configuration("cannot write \(temp.path)")
  }
  do {
    let handle = try FileHandle(forWritingTo: temp)
    try handle.write(contentsOf: data)
    try handle.synchronize()
    try handle.close()
    if rename(temp.path, url.path) != 0 {
      throw ShareError.configuration("cannot replace \(url.path): \(String(cString: strerror(errno)))")
    }
  } catch {
    unlink(temp.path)
    throw error
  }
}

/// The short code two people compare to pair their devices: six digits derived from both
/// fingerprints (in a fixed order), so each side computes the same code only when each saw the
/// other's real certificate. Like Bluetooth's numeric comparison.
public func verificationCode(_ a: Fingerprint, _ b: Fingerprint) -> String {
  let (low, high) = a < b ? (a, b) : (b, a)
  let digest = SHA256Hasher.hash(Array("share-pair-v1".utf8) + low.bytes + high.bytes)
  let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
  let digits = String(number)
  let padded = String(repeating: "0", count: 6 - digits.count) + digits
  return "\(padded.prefix(3)) \(padded.suffix(3))"
}
