import Foundation

/// What the Inbox remembers about an item beside its bytes.
public struct ItemMetadata: Codable, Sendable, Equatable {
  /// The name the sender offered (untrusted: escape before display).
  public var originalName: String
  /// `file`, `folder`, `url` or `text`.
  public var kind: String
  /// The sender's device name (untrusted: escape before display).
  public var senderName: String
  /// The sender's device ID: the fingerprint of its certificate, 64 hex digits.
  public var senderId: String
  public var receivedAt: Date
  /// Bytes of the item (a folder: of all its files).
  public var size: Int64
  /// SHA-256 of a file item's bytes, 64 hex digits.
  public var sha256: String?
  /// The type the receiver decided on, a type identifier such as `public.png`.
  public var type: String?
  /// A folder's number of files.
  public var files: Int?

  public init(
    originalName: String, kind: String, senderName: String, senderId: String,
    receivedAt: Date, size: Int64, sha256: String? = nil, type: String? = nil, files: Int? = nil
  ) {
    self.originalName = originalName
    self.kind = kind
    self.senderName = senderName
    self.senderId = senderId
    self.receivedAt = receivedAt
    self.size = size
    self.sha256 = sha256
    self.type = type
    self.files = files
  }
}

/// One line of the metadata journal: the record for one file identity.
struct MetadataRecord: Codable {
  var file: FileIdentity
  var meta: ItemMetadata
}
