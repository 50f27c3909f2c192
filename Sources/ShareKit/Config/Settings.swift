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

  /// The host name (empty when it cannot be read), from which the default device name is made.
  package static var hostName: String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Reads the settings at `url`, changes them with `body`, and writes them back — to the file a
  /// symbolic link `url` points at, when it is one (review 30: the link was replaced).
  package static func update(at url: URL, _ body: (inout Settings) -> Void) throws(ShareError) {
    var settings = try load(from: url)
    body(&settings)
    try settings.save(to: url.resolvingSymlinksInPath())
  }
}
