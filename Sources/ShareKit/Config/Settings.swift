import Foundation
import System

/// A home's settings file (`settings.json`): what the owner chose, all optional.
package struct Settings: Codable, Sendable, Equatable {
  /// The device name peers see (`share name NEW`); when unset, the host name or, when that is
  /// generic, a name made from it (see `DeviceName.fallback`).
  package var name: String?
  /// The receive mode the daemon starts in (`share receive` changes it); `everyone` when unset.
  package var receiveMode: ReceiveMode?
  /// When a timed `everyone` falls back to `contacts`.
  package var receiveUntil: Date?
  /// Bytes the daemon always leaves free on the disk holding the Inbox (`reserve_bytes`); 64 MiB
  /// when unset.
  package var reserveBytes: Int64?
  /// Whether the daemon also receives over LocalSend (`"localsend": true`), its HTTPS port
  /// (`localsend_port`, default 53317) and multicast interface (`localsend_multicast`: an IPv4
  /// address, `auto` or `off`; default `auto`). See `LocalSendOptions`.
  package var localsend: Bool?
  package var localsendPort: UInt16?
  package var localsendMulticast: String?
  /// The PIN LocalSend senders must give (`localsend_pin`), however LocalSend is turned on; a
  /// secret, better here (share writes this file owner-only) than on the command line, which `ps` shows. See `LocalSendPin`.
  package var localsendPin: String?

  package init(name: String? = nil, receiveMode: ReceiveMode? = nil, receiveUntil: Date? = nil, reserveBytes: Int64? = nil) {
    self.name = name
    self.receiveMode = receiveMode
    self.receiveUntil = receiveUntil
    self.reserveBytes = reserveBytes
  }

  /// Writes the settings atomically and durably, owner-only.
  package func save(to url: URL) throws(ShareError) {
    let data: Data
    do {
      data = try JSONCoding.encoder(pretty: true).encode(self)
    } catch {
      throw .configuration("cannot encode the settings: \(error)")
    }
    do {
      try FileSystem.makeDirectories(
        url.deletingLastPathComponent().path, permissions: FilePermissions(rawValue: 0o700))
      try writeDurably(data, to: url.path)
    } catch {
      throw .configuration("cannot write \(url.path): \(error)")
    }
  }

  /// Reads the settings; a missing file is the defaults, a broken one an error.
  package static func load(from url: URL) throws(ShareError) -> Settings {
    guard let data = FileManager.default.contents(atPath: url.path) else { return Settings() }
    let settings: Settings
    do {
      settings = try JSONCoding.decoder().decode(Settings.self, from: data)
    } catch {
      throw .configuration("\(url.path) is not valid settings JSON: \(describe(error))")
    }
    if let reserve = settings.reserveBytes, reserve < 0 {
      throw .configuration("\(url.path): reserve_bytes is \(reserve); it must be 0 or more")
    }
    return settings
  }

  /// A decoding error in words that name the key (review 27: `"reserve_bytes": "64MiB"` said
  /// only "the data isn't in the correct format").
  static func describe(_ error: any Error) -> String {
    // As the file spells it: the decoder reads snake_case into camelCase keys.
    func snake(_ name: String) -> String {
      name.reduce(into: "") { out, character in out += character.isUppercase ? "_" + character.lowercased() : String(character) }
    }
    func key(_ path: [any CodingKey]) -> String {
      path.isEmpty ? "the file" : path.map { $0.intValue.map { "[\($0)]" } ?? snake($0.stringValue) }.joined(separator: ".")
    }
    switch error as? DecodingError {
    case .typeMismatch(let type, let context):
      let wanted = type == Int64.self || type == Int.self ? "a whole number (bytes)" : "\(type)"
      return "\(key(context.codingPath)) must be \(wanted)"
    case .valueNotFound(_, let context): return "\(key(context.codingPath)) has no value"
    case .keyNotFound(let missing, let context): return "\(key(context.codingPath + [missing])) is missing"
    case .dataCorrupted(let context):
      // A number too large for its field, or JSON that is not JSON.
      return context.codingPath.isEmpty
        ? context.debugDescription : "\(key(context.codingPath)) is not a value share can read (\(context.debugDescription))"
    default: return error.localizedDescription
    }
  }

  /// The host name (empty when it cannot be read), from which the default device name is made.
  package static var hostName: String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Reads the settings at `url`, changes them with `body`, and writes them back.
  package static func update(at url: URL, _ body: (inout Settings) -> Void) throws(ShareError) {
    var settings = try load(from: url)
    body(&settings)
    try settings.save(to: url)
  }
}
