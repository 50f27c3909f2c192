/// A uniform type identifier such as `public.jpeg`, in reverse-DNS form.
///
/// Identifiers compare case-insensitively, as Apple's do: the raw value is
/// stored lower-cased, so `Public.JPEG` and `public.jpeg` are one key.
/// Dynamic identifiers for MIME types that no declaration names take the form
/// `dyn.mime.<type>/<subtype>` (see `TypeIdentifier.dynamic(mimeType:)`).
public struct TypeIdentifier: RawRepresentable, Hashable, Sendable, Codable,
  ExpressibleByStringLiteral, CustomStringConvertible, Comparable
{
  /// The identifier, lower-cased.
  public let rawValue: String

  /// Wraps `rawValue` (lower-cased); no validation, see `isReverseDNS`.
  public init(rawValue: String) { self.rawValue = rawValue.lowercased() }

  /// Wraps `rawValue` (lower-cased); no validation, see `isReverseDNS`.
  public init(_ rawValue: String) { self.init(rawValue: rawValue) }

  public init(stringLiteral value: String) { self.init(rawValue: value) }

  public init(from decoder: any Decoder) throws {
    self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }

  public static func < (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// The prefix of dynamic identifiers made for MIME types.
  public static let dynamicMIMEPrefix = "dyn.mime."

  /// The dynamic identifier of a MIME type no declaration names: `dyn.mime.` + the MIME type.
  public static func dynamic(mimeType: String) -> TypeIdentifier {
    TypeIdentifier(rawValue: dynamicMIMEPrefix + mimeType)
  }

  /// The MIME type a dynamic identifier stands for, or nil for other identifiers.
  public var dynamicMIMEType: String? {
    guard rawValue.hasPrefix(Self.dynamicMIMEPrefix) else { return nil }
    let mime = String(rawValue.dropFirst(Self.dynamicMIMEPrefix.count))
    return MIMEType.isValid(mime) ? mime : nil
  }

  /// Whether this is a dynamic identifier (`dyn.` prefix).
  public var isDynamic: Bool { rawValue.hasPrefix("dyn.") }

  /// Whether the identifier has reverse-DNS form: two or more dot-separated
  /// labels of ASCII letters, digits and hyphens, at most 255 characters.
  /// Dynamic identifiers are not reverse-DNS.
  public var isReverseDNS: Bool {
    let bytes = Array(rawValue.utf8)
    guard !bytes.isEmpty, bytes.count <= 255, !isDynamic else { return false }
    var labels = 0
    var labelLength = 0
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "."):
        guard labelLength > 0 else { return false }
        labels += 1
        labelLength = 0
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"):
        labelLength += 1
      default:
        return false
      }
    }
    guard labelLength > 0 else { return false }
    return labels + 1 >= 2
  }
}

extension TypeIdentifier {
  public static let item: TypeIdentifier = "public.item"
  public static let content: TypeIdentifier = "public.content"
  public static let data: TypeIdentifier = "public.data"
  public static let directory: TypeIdentifier = "public.directory"
  public static let folder: TypeIdentifier = "public.folder"
  public static let text: TypeIdentifier = "public.text"
  public static let plainText: TypeIdentifier = "public.plain-text"
  public static let utf8PlainText: TypeIdentifier = "public.utf8-plain-text"
  public static let sourceCode: TypeIdentifier = "public.source-code"
  public static let script: TypeIdentifier = "public.script"
  public static let shellScript: TypeIdentifier = "public.shell-script"
  public static let pythonScript: TypeIdentifier = "public.python-script"
  public static let image: TypeIdentifier = "public.image"
  public static let audiovisualContent: TypeIdentifier = "public.audiovisual-content"
  public static let movie: TypeIdentifier = "public.movie"
  public static let audio: TypeIdentifier = "public.audio"
  public static let archive: TypeIdentifier = "public.archive"
  public static let zipArchive: TypeIdentifier = "public.zip-archive"
  public static let executable: TypeIdentifier = "public.executable"
  public static let unixExecutable: TypeIdentifier = "public.unix-executable"
  public static let url: TypeIdentifier = "public.url"
  public static let xml: TypeIdentifier = "public.xml"
  public static let json: TypeIdentifier = "public.json"
  public static let font: TypeIdentifier = "public.font"
  public static let desktopEntry: TypeIdentifier = "org.freedesktop.desktop-entry"
  public static let installerPackage: TypeIdentifier = "public.installer-package"
  public static let appImage: TypeIdentifier = "org.appimage.appimage"
  public static let openXML: TypeIdentifier = "org.openxmlformats.openxml"
  public static let openDocument: TypeIdentifier = "org.oasis-open.opendocument"
  public static let compoundDocument: TypeIdentifier = "com.microsoft.compound-document"
  public static let macroEnabled: TypeIdentifier = "com.microsoft.office.macro-enabled"
}
