import Foundation
import System
import TextEscaping

/// One entry of `CFBundleDocumentTypes`: a named group of accepted content types.
package struct DocumentType: Sendable, Codable, Equatable {
  /// `CFBundleTypeName`, shown in reasons (`accepted by "Images"`).
  package var name: String
  /// `LSItemContentTypes`: an item is accepted by this entry when its type conforms to one.
  package var contentTypes: [TypeIdentifier]

  package init(name: String, contentTypes: [TypeIdentifier]) {
    self.name = name
    self.contentTypes = contentTypes
  }
}

/// A receiver's type declarations, in the vocabulary of an iOS Info.plist.
///
/// | key | meaning |
/// |---|---|
/// | `CFBundleDocumentTypes` | accepted kinds: `CFBundleTypeName` + `LSItemContentTypes` |
/// | `UTExportedTypeDeclarations` | types this receiver defines: `UTTypeIdentifier`, `UTTypeDescription`, `UTTypeConformsTo`, `UTTypeTagSpecification` (`public.filename-extension`, `public.mime-type`, each a string or an array) |
/// | `UTImportedTypeDeclarations` | the same, for types defined elsewhere; ignored when already built in |
/// | `ExcludedActivityTypes` | identifiers never accepted, even when they conform to an accepted type (after `UIActivityViewController.excludedActivityTypes`) |
///
/// Parsed with Foundation's `PropertyListDecoder` (XML or binary plist). Unknown keys are
/// errors, because a misspelt `ExcludedActivityTypes` would silently accept what was meant to
/// be excluded. Icon, role and rank keys of real Info.plists are allowed and ignored.
/// Identifiers are checked for form here; whether they exist is checked against a registry by
/// `TypePolicy.init(registry:declarations:)`.
package struct Declarations: Sendable, Equatable {
  /// The key of the exclusion list.
  package static let excludedKey = "ExcludedActivityTypes"
  /// The file name a home keeps its declarations under, and the default's name in the repository (Inbox/).
  package static let fileName = "Declarations.plist"
  /// Larger files are refused unread.
  package static let maximumFileSize = 1 << 20

  package var documentTypes: [DocumentType]
  package var exportedTypes: [TypeDeclaration]
  package var importedTypes: [TypeDeclaration]
  package var excludedTypes: [TypeIdentifier]
  /// Where these declarations came from: a path, or `built-in default`.
  package var source: String

  package init(
    documentTypes: [DocumentType] = [], exportedTypes: [TypeDeclaration] = [],
    importedTypes: [TypeDeclaration] = [], excludedTypes: [TypeIdentifier] = [], source: String
  ) {
    self.documentTypes = documentTypes
    self.exportedTypes = exportedTypes
    self.importedTypes = importedTypes
    self.excludedTypes = excludedTypes
    self.source = source
  }

  /// Every identifier some document type accepts, in file order, without repeats.
  package var acceptedTypes: [TypeIdentifier] {
    var seen = Set<TypeIdentifier>()
    return documentTypes.flatMap(\.contentTypes).filter { seen.insert($0).inserted }
  }

  /// Reads and parses a declarations file.
  /// - Throws: `DeclarationsError` (`unreadable` with the system's reason, or a parse error).
  package static func load(from url: URL) throws(DeclarationsError) -> Declarations {
    let path = url.path
    let data: Data
    do {
      let file = try FileDescriptor.open(path, .readOnly)
      data = Data(try file.closeAfter { () throws(Errno) in try file.readAll(upTo: maximumFileSize + 1) })
    } catch {
      throw DeclarationsError(
        kind: .unreadable, source: path, keyPath: "",
        message: "cannot read the file: \(error) (errno \(error.rawValue))")
    }
    guard data.count <= maximumFileSize else {
      throw DeclarationsError(
        kind: .invalidValue, source: path, keyPath: "",
        message: "the file is larger than \(maximumFileSize) bytes")
    }
    return try parse(data, source: path)
  }

  /// Parses declarations from plist data; `source` names it in errors.
  package static func parse(_ data: Data, source: String) throws(DeclarationsError) -> Declarations {
    do {
      var declarations = try PropertyListDecoder().decode(DeclarationsFile.self, from: data).value
      declarations.source = source
      for index in declarations.exportedTypes.indices {
        declarations.exportedTypes[index].origin = TypeOrigin(kind: .declarations, source: source)
      }
      for index in declarations.importedTypes.indices {
        declarations.importedTypes[index].origin = TypeOrigin(kind: .declarations, source: source)
      }
      return declarations
    } catch var error as DeclarationsError {
      error.source = source
      throw error
    } catch let DecodingError.dataCorrupted(context) {
      let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
      let located = PlistLocator.locate(data)
      var message = "not a valid property list"
      if let problem = located?.problem {
        message += ": " + problem
      } else if let detail {
        // Foundation's line numbers are unreliable on Linux; keep its words only.
        message += ": " + PlistLocator.withoutLineNumber(detail)
      }
      throw DeclarationsError(kind: .invalidPlist, source: source, keyPath: "", message: message, line: located?.line)
    } catch let DecodingError.typeMismatch(_, context) {
      throw DeclarationsError(
        kind: .wrongType, source: source, keyPath: "",
        message: "expected a dictionary at the top level: " + context.debugDescription)
    } catch {
      throw DeclarationsError(kind: .invalidPlist, source: source, keyPath: "", message: "\(error)")
    }
  }
}

// MARK: - Decoding

/// A string key for reading plist dictionaries whose keys are checked by hand.
private struct PlistKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// The whole file, decoded by hand so each error can name its key path.
private struct DeclarationsFile: Decodable {
  var value: Declarations

  static let rootKeys: Set<String> = [
    "CFBundleDocumentTypes", "UTExportedTypeDeclarations", "UTImportedTypeDeclarations", Declarations.excludedKey,
  ]

  init(from decoder: any Decoder) throws {
    let root: KeyedDecodingContainer<PlistKey>
    do {
      root = try decoder.container(keyedBy: PlistKey.self)
    } catch {
      throw DeclarationsError(
        kind: .wrongType, source: "", keyPath: "", message: "expected a dictionary at the top level")
    }
    try Reader.checkKeys(root, known: Self.rootKeys, ignored: [], path: "")
    var value = Declarations(source: "")
    value.documentTypes = try Reader.dictionaries(root, "CFBundleDocumentTypes", path: "") { entry, path in
      try Reader.documentType(entry, path: path)
    }
    value.exportedTypes = try Reader.dictionaries(root, "UTExportedTypeDeclarations", path: "") { entry, path in
      try Reader.typeDeclaration(entry, path: path)
    }
    value.importedTypes = try Reader.dictionaries(root, "UTImportedTypeDeclarations", path: "") { entry, path in
      try Reader.typeDeclaration(entry, path: path)
    }
    value.excludedTypes = try Reader.identifiers(root, Declarations.excludedKey, path: "", required: false)
    var seen: [TypeIdentifier: String] = [:]
    for (key, list) in [("UTExportedTypeDeclarations", value.exportedTypes), ("UTImportedTypeDeclarations", value.importedTypes)] {
      for (index, declaration) in list.enumerated() {
        let path = "\(key)[\(index)].UTTypeIdentifier"
        if let first = seen[declaration.identifier] {
          throw DeclarationsError(
            kind: .conflict, source: "", keyPath: path,
            message: "\(declaration.identifier) is declared twice (first at \(first))")
        }
        seen[declaration.identifier] = path
      }
    }
    self.value = value
  }
}

/// Reading helpers that turn every decoding failure into a `DeclarationsError` with its key path.
private enum Reader {
  typealias Container = KeyedDecodingContainer<PlistKey>

  static let documentTypeKeys: Set<String> = ["CFBundleTypeName", "LSItemContentTypes"]
  static let documentTypeIgnored: Set<String> = [
    "CFBundleTypeRole", "LSHandlerRank", "CFBundleTypeIconFile", "CFBundleTypeIconFiles",
    "CFBundleTypeIconSystemGenerated", "LSTypeIsPackage", "NSDocumentClass", "NSExportableTypes",
    "NSUbiquitousDocumentUserActivityType",
  ]
  static let typeKeys: Set<String> = [
    "UTTypeIdentifier", "UTTypeDescription", "UTTypeConformsTo", "UTTypeTagSpecification",
  ]
  static let typeIgnored: Set<String> = [
    "UTTypeIconFile", "UTTypeIconFiles", "UTTypeIcons", "UTTypeReferenceURL", "UTTypeIconName",
    "UTTypeIconBadgeName", "UTTypeIconText", "UTTypeIconBackgroundName", "UTTypeSupportsExtensionHiding",
  ]
  static let tagKeys: Set<String> = ["public.filename-extension", "public.mime-type"]
  static let tagIgnored: Set<String> = ["com.apple.ostype", "com.apple.nspboard-type", "public.url-scheme"]

  /// Keys that look like a way to accept by extension but are not supported.
  static let unsupported: [String: String] = [
    "CFBundleTypeExtensions":
      "is not supported: declare a type with UTTypeTagSpecification and list its identifier in LSItemContentTypes",
    "CFBundleTypeMIMETypes":
      "is not supported: declare a type with UTTypeTagSpecification and list its identifier in LSItemContentTypes",
    "CFBundleTypeOSTypes": "is not supported: list type identifiers in LSItemContentTypes",
  ]

  static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

  static func checkKeys(_ container: Container, known: Set<String>, ignored: Set<String>, path: String) throws {
    for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) && !ignored.contains(key) {
      if let why = unsupported[key] {
        throw DeclarationsError(kind: .unknownKey, source: "", keyPath: join(path, Escaping.escaped(key)), message: why)
      }
      var message = "unknown key"
      if let suggestion = Suggestions.closest(to: key, among: known) { message += " (did you mean \(suggestion)?)" }
      message += "; known keys here: " + known.sorted().joined(separator: ", ")
      throw DeclarationsError(kind: .unknownKey, source: "", keyPath: join(path, Escaping.escaped(key)), message: message)
    }
  }

  static func wrongType(_ expected: String, at path: String, found: String) -> DeclarationsError {
    DeclarationsError(kind: .wrongType, source: "", keyPath: path, message: "expected \(expected), found \(found)")
  }

  /// What kind of plist value sits under `key`, for messages.
  static func kind(_ container: Container, _ key: PlistKey) -> String {
    if (try? container.decode(String.self, forKey: key)) != nil { return "a string" }
    if (try? container.decode(Bool.self, forKey: key)) != nil { return "a boolean" }
    if (try? container.decode(Int.self, forKey: key)) != nil { return "an integer" }
    if (try? container.decode(Double.self, forKey: key)) != nil { return "a real number" }
    if (try? container.decode(Date.self, forKey: key)) != nil { return "a date" }
    if (try? container.decode(Data.self, forKey: key)) != nil { return "data" }
    if (try? container.nestedUnkeyedContainer(forKey: key)) != nil { return "an array" }
    if (try? container.nestedContainer(keyedBy: PlistKey.self, forKey: key)) != nil { return "a dictionary" }
    return "another kind of value"
  }

  static func kind(_ array: any UnkeyedDecodingContainer) -> String {
    var probe = array
    if (try? probe.decode(String.self)) != nil { return "a string" }
    probe = array
    if (try? probe.decode(Bool.self)) != nil { return "a boolean" }
    probe = array
    if (try? probe.decode(Int.self)) != nil { return "an integer" }
    probe = array
    if (try? probe.decode(Double.self)) != nil { return "a real number" }
    probe = array
    if (try? probe.nestedUnkeyedContainer()) != nil { return "an array" }
    probe = array
    if (try? probe.nestedContainer(keyedBy: PlistKey.self)) != nil { return "a dictionary" }
    return "another kind of value"
  }

  /// An optional array of dictionaries under `key`, each read by `read`.
  static func dictionaries<T>(
    _ container: Container, _ keyName: String, path: String,
    _ read: (Container, String) throws -> T
  ) throws -> [T] {
    let key = PlistKey(keyName)
    let here = join(path, keyName)
    guard container.contains(key) else { return [] }
    guard var array = try? container.nestedUnkeyedContainer(forKey: key) else {
      throw wrongType("an array of dictionaries", at: here, found: kind(container, key))
    }
    var result: [T] = []
    while !array.isAtEnd {
      let index = array.currentIndex
      let itemPath = "\(here)[\(index)]"
      let probe = array
      guard let entry = try? array.nestedContainer(keyedBy: PlistKey.self) else {
        throw wrongType("a dictionary", at: itemPath, found: kind(probe))
      }
      result.append(try read(entry, itemPath))
    }
    return result
  }

  /// A string, or an array of strings, under `key`, each with its key path; nil when absent.
  static func strings(_ container: Container, _ keyName: String, path: String) throws -> [(value: String, path: String)]? {
    let key = PlistKey(keyName)
    let here = join(path, keyName)
    guard container.contains(key) else { return nil }
    if let single = try? container.decode(String.self, forKey: key) { return [(single, here)] }
    guard var array = try? container.nestedUnkeyedContainer(forKey: key) else {
      throw wrongType("a string or an array of strings", at: here, found: kind(container, key))
    }
    var result: [(String, String)] = []
    while !array.isAtEnd {
      let itemPath = "\(here)[\(array.currentIndex)]"
      let probe = array
      guard let value = try? array.decode(String.self) else {
        throw wrongType("a string", at: itemPath, found: kind(probe))
      }
      result.append((value, itemPath))
    }
    return result
  }

  static func requiredString(_ container: Container, _ keyName: String, path: String) throws -> String {
    let key = PlistKey(keyName)
    let here = join(path, keyName)
    guard container.contains(key) else {
      throw DeclarationsError(kind: .missingKey, source: "", keyPath: here, message: "missing (a string is required)")
    }
    guard let value = try? container.decode(String.self, forKey: key) else {
      throw wrongType("a string", at: here, found: kind(container, key))
    }
    return value
  }

  /// Type identifiers under `key` (a string or an array of strings), each reverse-DNS or a
  /// dynamic MIME identifier; `required` means present and non-empty.
  static func identifiers(_ container: Container, _ keyName: String, path: String, required: Bool) throws -> [TypeIdentifier] {
    let here = join(path, keyName)
    guard let values = try strings(container, keyName, path: path) else {
      if required {
        throw DeclarationsError(
          kind: .missingKey, source: "", keyPath: here, message: "missing (at least one type identifier is required)")
      }
      return []
    }
    if required && values.isEmpty {
      throw DeclarationsError(kind: .invalidValue, source: "", keyPath: here, message: "empty (at least one type identifier is required)")
    }
    return try values.map { value, valuePath in
      let id = TypeIdentifier(value.trimmingBlanks())
      guard id.isReverseDNS || id.dynamicMIMEType != nil else {
        throw DeclarationsError(
          kind: .invalidIdentifier, source: "", keyPath: valuePath,
          message: "\(Escaping.quoted(value)) is not a reverse-DNS type identifier (e.g. public.image, com.example.note)")
      }
      return id
    }
  }

  static func documentType(_ entry: Container, path: String) throws -> DocumentType {
    try checkKeys(entry, known: documentTypeKeys, ignored: documentTypeIgnored, path: path)
    let name = try requiredString(entry, "CFBundleTypeName", path: path).trimmingBlanks()
    guard !name.isEmpty else {
      throw DeclarationsError(kind: .invalidValue, source: "", keyPath: join(path, "CFBundleTypeName"), message: "empty name")
    }
    let types = try identifiers(entry, "LSItemContentTypes", path: path, required: true)
    return DocumentType(name: name, contentTypes: types)
  }

  static func typeDeclaration(_ entry: Container, path: String) throws -> TypeDeclaration {
    try checkKeys(entry, known: typeKeys, ignored: typeIgnored, path: path)
    let rawID = try requiredString(entry, "UTTypeIdentifier", path: path)
    let id = TypeIdentifier(rawID.trimmingBlanks())
    guard id.isReverseDNS else {
      throw DeclarationsError(
        kind: .invalidIdentifier, source: "", keyPath: join(path, "UTTypeIdentifier"),
        message:
          "\(Escaping.quoted(rawID)) is not a reverse-DNS identifier (labels of letters, digits and hyphens separated by dots, e.g. com.example.note)"
      )
    }
    let description: String
    if entry.contains(PlistKey("UTTypeDescription")) {
      description = try requiredString(entry, "UTTypeDescription", path: path)
    } else {
      description = id.rawValue
    }
    let parents = try identifiers(entry, "UTTypeConformsTo", path: path, required: true)
    var extensions: [String] = []
    var mimeTypes: [String] = []
    let tagKey = PlistKey("UTTypeTagSpecification")
    if entry.contains(tagKey) {
      let tagPath = join(path, "UTTypeTagSpecification")
      guard let tags = try? entry.nestedContainer(keyedBy: PlistKey.self, forKey: tagKey) else {
        throw wrongType("a dictionary", at: tagPath, found: kind(entry, tagKey))
      }
      try checkKeys(tags, known: tagKeys, ignored: tagIgnored, path: tagPath)
      for (raw, valuePath) in try strings(tags, "public.filename-extension", path: tagPath) ?? [] {
        let ext = raw.trimmingBlanks().lowercased()
        if ext.hasPrefix("."), TypeRegistry.isValidExtension(String(ext.dropFirst())) {
          throw DeclarationsError(
            kind: .invalidValue, source: "", keyPath: valuePath,
            message: "\(Escaping.quoted(raw)) starts with a dot; write \(Escaping.quoted(String(ext.dropFirst())))")
        }
        guard TypeRegistry.isValidExtension(ext) else {
          throw DeclarationsError(
            kind: .invalidValue, source: "", keyPath: valuePath,
            message:
              "\(Escaping.quoted(raw)) is not a filename extension (no dot at either end, no slash, wildcard, blank or control character)")
        }
        extensions.append(ext)
      }
      for (raw, valuePath) in try strings(tags, "public.mime-type", path: tagPath) ?? [] {
        let mime = MIMEType.normalized(raw)
        guard MIMEType.isValid(mime) else {
          throw DeclarationsError(
            kind: .invalidValue, source: "", keyPath: valuePath,
            message: "\(Escaping.quoted(raw)) is not a MIME type of the form type/subtype")
        }
        mimeTypes.append(mime)
      }
    }
    return TypeDeclaration(
      identifier: id, description: description, conformsTo: parents, filenameExtensions: extensions,
      mimeTypes: mimeTypes, origin: TypeOrigin(kind: .declarations))
  }
}
