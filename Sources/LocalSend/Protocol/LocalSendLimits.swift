/// Caps on what a LocalSend peer may send. Every string and number from the network is checked
/// against these before anything else looks at it.
public struct LocalSendLimits: Sendable, Equatable {
  /// Largest prepare-upload body (the file list, previews included).
  public var maxPrepareBodyBytes: Int
  /// Largest register body (a device description).
  public var maxRegisterBodyBytes: Int
  /// Most files one prepare-upload may offer.
  public var maxFiles: Int
  /// Longest alias and device model, in UTF-8 bytes.
  public var maxAliasBytes: Int
  /// Longest `fingerprint` (HTTP mode allows any string).
  public var maxFingerprintBytes: Int
  /// Longest file ID, session ID and token.
  public var maxIdBytes: Int
  /// Longest file name (a relative path for a file in a folder), and each of its components.
  public var maxFileNameBytes: Int
  public var maxFileNameComponentBytes: Int
  /// Longest `fileType`.
  public var maxFileTypeBytes: Int
  /// Longest `preview` (a text message's whole text).
  public var maxPreviewBytes: Int
  /// Largest file size accepted in an offer.
  public var maxFileSize: Int64
  /// Longest PIN.
  public var maxPinBytes: Int

  public init(
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

  public static let `default` = LocalSendLimits()
}
