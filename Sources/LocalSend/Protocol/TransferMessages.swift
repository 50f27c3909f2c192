/// One file in a prepare-upload request (§4.1), keyed by its `id` in the `files` object.
package struct FileOffer: Codable, Sendable, Equatable {
  package var id: String
  /// The sender's name for it; may hold "/" for a file inside a sent folder.
  package var fileName: String
  /// Bytes.
  package var size: Int64
  /// A MIME type as the sender sees it; a hint, never trusted.
  package var fileType: String
  /// Lowercase or uppercase hex SHA-256 of the content, when the sender offers it.
  package var sha256: String?
  /// A preview (text messages carry their whole text here).
  package var preview: String?
  package var metadata: FileMetadata?

  package init(
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
package struct FileMetadata: Codable, Sendable, Equatable {
  package var modified: String?
  package var accessed: String?

  package init(modified: String? = nil, accessed: String? = nil) {
    self.modified = modified
    self.accessed = accessed
  }
}

/// `POST /prepare-upload` body.
package struct PrepareUploadRequest: Codable, Sendable, Equatable {
  package var info: LocalSendDevice
  package var files: [String: FileOffer]

  package init(info: LocalSendDevice, files: [String: FileOffer]) {
    self.info = info
    self.files = files
  }
}

/// `POST /prepare-upload` answer: the session and a token for each accepted file (refused
/// files are left out).
package struct PrepareUploadResponse: Codable, Sendable, Equatable {
  package var sessionId: String
  package var files: [String: String]

  package init(sessionId: String, files: [String: String]) {
    self.sessionId = sessionId
    self.files = files
  }
}

/// The JSON body of an error answer, as the LocalSend app sends it.
package struct ErrorMessage: Codable, Sendable, Equatable {
  package var message: String

  package init(message: String) {
    self.message = message
  }
}

/// The protocol's constants.
package enum LocalSendProtocol {
  /// The version this implementation speaks (the document's).
  package static let version = "2.1"
  /// The default port of the HTTPS server and of multicast.
  package static let defaultPort: UInt16 = 53317
  /// The default multicast group.
  package static let multicastGroup = "224.0.0.167"

  /// The routes, under `/api/localsend/v2/`.
  package enum Route: String, Sendable, CaseIterable {
    case info, register
    case prepareUpload = "prepare-upload"
    case upload, cancel

    package var path: String { "/api/localsend/v2/" + rawValue }
    package var method: String { self == .info ? "GET" : "POST" }
  }
}
