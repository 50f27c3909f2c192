/// A uniform type identifier such as `public.jpeg`, in reverse-DNS form.
///
/// Identifiers compare case-insensitively, as Apple's do: the raw value is
/// stored lower-cased, so `Public.JPEG` and `public.jpeg` are one key.
/// Dynamic identifiers for MIME types that no declaration names take the form
/// `dyn.mime.<type>/<subtype>` (see `TypeIdentifier.dynamic(mimeType:)`).
package struct TypeIdentifier: RawRepresentable, Hashable, Sendable, Codable,
  ExpressibleByStringLiteral, CustomStringConvertible, Comparable
{
  /// The identifier, lower-cased.
  package let rawValue: String

  /// Wraps `rawValue` (lower-cased); no validation, see `isReverseDNS`.
  package init(rawValue: String) { self.rawValue = rawValue.lowercased() }

  /// Wraps `rawValue` (lower-cased); no validation, see `isReverseDNS`.
  package init(_ rawValue: String) { self.init(rawValue: rawValue) }

  package init(stringLiteral value: String) { self.init(rawValue: value) }

  package init(from decoder: any Decoder) throws {
    self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  package var description: String { rawValue }

  package static func < (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// The prefix of dynamic identifiers made for MIME types.
  package static let dynamicMIMEPrefix = "dyn.mime."

  /// The dynamic identifier of a MIME type no declaration names: `dyn.mime.` + the MIME type.
  package static func dynamic(mimeType: String) -> TypeIdentifier {
    TypeIdentifier(rawValue: dynamicMIMEPrefix + mimeType)
  }

  /// The MIME type a dynamic identifier stands for, or nil for other identifiers.
  package var dynamicMIMEType: String? {
    guard rawValue.hasPrefix(Self.dynamicMIMEPrefix) else { return nil }
    let mime = String(rawValue.dropFirst(Self.dynamicMIMEPrefix.count))
    return MIMEType.isValid(mime) ? mime : nil
  }

  /// Whether this is a dynamic identifier (`dyn.` prefix).
  package var isDynamic: Bool { rawValue.hasPrefix("dyn.") }

  /// Whether the identifier has reverse-DNS form: two or more dot-separated
  /// labels of ASCII letters, digits and hyphens, at most 255 characters.
  /// Dynamic identifiers are not reverse-DNS.
  package var isReverseDNS: Bool {
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
  package static let item: TypeIdentifier = "public.item"
  package static let content: TypeIdentifier = "public.content"
  package static let data: TypeIdentifier = "public.data"
  package static let directory: TypeIdentifier = "public.directory"
  package static let folder: TypeIdentifier = "public.folder"
  package static let text: TypeIdentifier = "public.text"
  package static let plainText: TypeIdentifier = "public.plain-text"
  package static let utf8PlainText: TypeIdentifier = "public.utf8-plain-text"
  package static let sourceCode: TypeIdentifier = "public.source-code"
  package static let script: TypeIdentifier = "public.script"
  package static let shellScript: TypeIdentifier = "public.shell-script"
  package static let pythonScript: TypeIdentifier = "public.python-script"
  package static let image: TypeIdentifier = "public.image"
  package static let audiovisualContent: TypeIdentifier = "public.audiovisual-content"
  package static let movie: TypeIdentifier = "public.movie"
  package static let audio: TypeIdentifier = "public.audio"
  package static let archive: TypeIdentifier = "public.archive"
  package static let zipArchive: TypeIdentifier = "public.zip-archive"
  package static let executable: TypeIdentifier = "public.executable"
  package static let unixExecutable: TypeIdentifier = "public.unix-executable"
  package static let url: TypeIdentifier = "public.url"
  package static let xml: TypeIdentifier = "public.xml"
  package static let json: TypeIdentifier = "public.json"
  package static let font: TypeIdentifier = "public.font"
  package static let desktopEntry: TypeIdentifier = "org.freedesktop.desktop-entry"
  package static let themeDescription: TypeIdentifier = "org.freedesktop.theme-description"
  package static let folderSettings: TypeIdentifier = "org.freedesktop.folder-settings"
  package static let installerPackage: TypeIdentifier = "public.installer-package"
  package static let appImage: TypeIdentifier = "org.appimage.appimage"
  package static let openXML: TypeIdentifier = "org.openxmlformats.openxml"
  package static let openDocument: TypeIdentifier = "org.oasis-open.opendocument"
  package static let openDocumentMacros: TypeIdentifier = "org.oasis-open.opendocument.macro-enabled"
  package static let compoundDocument: TypeIdentifier = "com.microsoft.compound-document"
  package static let macroEnabled: TypeIdentifier = "com.microsoft.office.macro-enabled"
  package static let internetShortcut: TypeIdentifier = "com.microsoft.internet-shortcut"
  package static let webLocation: TypeIdentifier = "com.apple.web-internet-location"
}
