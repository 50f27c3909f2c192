/// Caps on what a LocalSend peer may send. Every string and number from the network is checked
/// against these before anything else looks at it.
package struct LocalSendLimits: Sendable, Equatable {
  /// Largest prepare-upload body (the file list, previews included).
  package var maxPrepareBodyBytes: Int
  /// Largest register body (a device description).
  package var maxRegisterBodyBytes: Int
  /// Most files one prepare-upload may offer.
  package var maxFiles: Int
  /// Longest alias and device model, in UTF-8 bytes.
  package var maxAliasBytes: Int
  /// Longest `fingerprint` (HTTP mode allows any string).
  package var maxFingerprintBytes: Int
  /// Longest file ID, session ID and token.
  package var maxIdBytes: Int
  /// Longest file name (a relative path for a file in a folder), and each of its components.
  package var maxFileNameBytes: Int
  package var maxFileNameComponentBytes: Int
  /// Longest `fileType`.
  package var maxFileTypeBytes: Int
  /// Longest `preview` (a text message's whole text).
  package var maxPreviewBytes: Int
  /// Largest file size accepted in an offer.
  package var maxFileSize: Int64
  /// Longest PIN.
  package var maxPinBytes: Int

  package init(
    maxPrepareBodyBytes: Int = 4 << 20, maxRegisterBodyBytes: Int = 16 << 10,
    maxFiles: Int = 4096, maxAliasBytes: Int = 256, maxFingerprintBytes: Int = 256,
    maxIdBytes: Int = 128, maxFileNameBytes: Int = 1024, maxFileNameComponentBytes: Int = 255,
    maxFileTypeBytes: Int = 255, maxPreviewBytes: Int = 1 << 20, maxFileSize: Int64 = 1 << 50,
    maxPinBytes: Int = 64
  ) {
    self.maxPrepareBodyBytes = maxPrepareBodyBytes
    self.maxRegisterBodyBytes = maxRegisterBodyBytes
    self.maxFiles = maxFiles
    self.maxAliasBytes = maxAliasBytes
    self.maxFingerprintBytes = maxFingerprintBytes
    self.maxIdBytes = maxIdBytes
    self.maxFileNameBytes = maxFileNameBytes
    self.maxFileNameComponentBytes = maxFileNameComponentBytes
    self.maxFileTypeBytes = maxFileTypeBytes
    self.maxPreviewBytes = maxPreviewBytes
    self.maxFileSize = maxFileSize
    self.maxPinBytes = maxPinBytes
  }

  package static let `default` = LocalSendLimits()
}
