import Foundation
import Glibc
import Wire

/// An item to send: how it describes itself (its offer) and where its bytes come from.
/// Built once and shared by every recipient of a send.
public struct OutgoingItem: Sendable {
  /// Where the bytes come from.
  public enum Source: Sendable {
    /// A regular file, read when the receiver asks for it.
    case file(URL)
    /// Bytes held in memory (a URL or a text snippet).
    case inline([UInt8])
  }

  public var offer: ItemOffer
  public var source: Source
  /// The path or argument the user gave, for messages.
  public var label: String

  public init(offer: ItemOffer, source: Source, label: String) {
    self.offer = offer
    self.source = source
    self.label = label
  }

  /// Describes the paths a user named: each must be a regular file (folders, URLs, text and
  /// standard input are other kinds of item). Nothing is read yet.
  public static func files(_ paths: [String], firstID: Int = 0) throws(ShareError) -> [OutgoingItem] {
    var items: [OutgoingItem] = []
    for (index, path) in paths.enumerated() {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      var info = stat()
      guard stat(url.path, &info) == 0 else {
        throw .source(path: path, reason: String(cString: strerror(errno)))
      }
      switch info.st_mode & S_IFMT {
      case S_IFREG:
        break
      case S_IFDIR:
        throw .source(path: path, reason: "it is a folder, and sending folders is not supported yet")
      default:
        throw .source(path: path, reason: "it is not a regular file")
      }
      guard access(url.path, R_OK) == 0 else {
        throw .source(path: path, reason: String(cString: strerror(errno)))
      }
      let offer = ItemOffer(
        id: firstID + index, kind: .file, name: url.lastPathComponent, size: Int64(info.st_size),
        resumeKey: resumeKey(for: url, info: info))
      items.append(OutgoingItem(offer: offer, source: .file(url), label: path))
    }
    return items
  }

  /// The same for the same file content as far as the sender can tell cheaply: path, size,
  /// modification time and inode.
  static func resumeKey(for url: URL, info: stat) -> String {
    let text = "\(url.path)\0\(info.st_size)\0\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\0\(info.st_ino)"
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: a key, not a secret
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
  }
}
