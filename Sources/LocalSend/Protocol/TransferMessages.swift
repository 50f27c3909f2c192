/// One file in a prepare-upload request (§4.1), keyed by its `id` in the `files` object.
public struct FileOffer: Codable, Sendable, Equatable {
  public var id: String
  /// The sender's name for it; may hold "/" for a file inside a sent folder.
  public var fileName: String
  /// Bytes.
  public var size: Int64
  /// A MIME type as the sender sees it; a hint, never trusted.
  public var fileType: String
  /// Lowercase or uppercase hex SHA-256 of the content, when the sender offers it.
  public var sha256: String?
  /// A preview (text messages carry their whole text here).
  public var preview: String?
  public var metadata: FileMetadata?

  public init(
    id: String, fileName: String, size: Int64, fileType: String, sha256: String? = nil,
    preview: String? = nil, metadata: FileMetadata? = nil
  ) {
    self.id = id
    self.fileName = fileName
    self.size = size
    self.fileType = fileType
    self.sha256 = sha256
    self.preview = preview
    self.metadata = metadata
  }
}

/// File times (protocol 2.1), ISO 8601 text as sent.
public struct FileMetadata: Codable, Sendable, Equatable {
  public var modified: String?
  public var accessed: String?

  public init(modified: String? = nil, accessed: String? = nil) {
    self.modified = modified
    self.accessed = accessed
  }
}

/// `POST /prepare-upload` body.
public struct PrepareUploadRequest: Codable, Sendable, Equatable {
  public var info: LocalSendDevice
  public var files: [String: FileOffer]

  public init(info: LocalSendDevice, files: [String: FileOffer]) {
    self.info = info
    self.files = files
  }
}

/// `POST /prepare-upload` answer: the session and a token for each accepted file (refused
/// files are left out).
public struct PrepareUploadResponse: Codable, Sendable, Equatable {
  public var sessionId: String
  public var files: [String: String]

  public init(sessionId: String, files: [String: String]) {
    self.sessionId = sessionId
    self.files = files
  }
}

/// The JSON body of an error answer, as the LocalSend app sends it.
public struct ErrorMessage: Codable, Sendable, Equatable {
  public var message: String

  public init(message: String) {
    self.message = message
  }
}

/// The protocol's constants.
public enum LocalSendProtocol {
  /// The version this implementation speaks (the document's).
  public static let version = "2.1"
  /// The default port of the HTTPS server and of multicast.
  public static let defaultPort: UInt16 = 53317
  /// The default multicast group.
  public static let multicastGroup = "224.0.0.167"

  /// The routes, under `/api/localsend/v2/`.
  public enum Route: String, Sendable, CaseIterable {
    case info, register
    case prepareUpload = "prepare-upload"
    case upload, cancel

    public var path: String { "/api/localsend/v2/" + rawValue }
    public var method: String { self == .info ? "GET" : "POST" }
  }
}
