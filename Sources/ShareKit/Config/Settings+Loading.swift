import Foundation
import System

/// Reading `settings.json`: a missing file is the defaults; anything else that is not settings
/// share can read is an error that names the setting and says what it must be.
extension Settings {
  /// The settings, as the file spells them, and what each must be.
  static let expected: KeyValuePairs<String, String> = [
    "name": "text in quotes",
    "receive_mode": "\"off\", \"contacts\" or \"everyone\"",
    "receive_until": "a date and time in quotes, ISO 8601 (\"2026-12-31T18:00:00Z\")",
    "reserve_bytes": "a whole number of bytes, 0 or more",
    "localsend": "true or false",
    "localsend_port": "a port number, a whole number up to 65535",
    "localsend_multicast": "an IPv4 address, \"auto\" or \"off\", in quotes",
    "localsend_pin": "text in quotes",
  ]

  /// Longer than any settings file share writes, by far.
  static let maximumBytes = 1 << 20

  /// Reads the settings; a missing file is the defaults, a broken or unreadable one an error
  /// (review 30: an unreadable file was taken for a missing one, and its PIN was not asked for).
  package static func load(from url: URL) throws(ShareError) -> Settings {
    let bytes: [UInt8]
    do {
      let file = try FileDescriptor.open(url.path, .readOnly)
      bytes = try file.closeAfter { () throws(Errno) in try file.readAll(upTo: maximumBytes + 1) }
    } catch .noSuchFileOrDirectory {
      return Settings()
    } catch {
      throw .configuration("cannot read \(url.path): \(error)")
    }
    guard bytes.count <= maximumBytes else { throw .configuration("\(url.path) is larger than 1 MiB: not a settings file") }
    let settings = try decode(Data(bytes), path: url.path)
    if let reserve = settings.reserveBytes, reserve < 0 {
      throw .configuration("\(url.path): reserve_bytes is \(reserve); it must be 0 or more")
    }
    // Checked by every command, not only by the daemon that uses it (review 32).
    if let pin = settings.localsendPin {
      do throws(LocalSendPin.Problem) {
        _ = try LocalSendPin(pin)
      } catch {
        throw .configuration("\(url.path): localsend_pin \(error)")
      }
    }
    return settings
  }

  /// The settings `data` holds. A setting share does not know is an error, with the nearest
  /// it does (review 30: a misspelt `localsend_pinn` meant no PIN, and nothing said so); so is
  /// a value of another kind, or a number too large for its setting, named by its key.
  static func decode(_ data: Data, path: String) throws(ShareError) -> Settings {
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    } catch {
      throw .configuration("\(path) is not valid settings JSON: it is not JSON (\(error.localizedDescription))")
    }
    guard let fields = object as? [String: Any] else {
      throw .configuration("\(path) is not valid settings JSON: it must hold one object, { \"name\": \"…\", … }")
    }
    let known = expected.map(\.key)
    for key in fields.keys.sorted() where !known.contains(key) {
      let guess = Suggestions.closest(to: key, among: known).map { "; did you mean \($0)?" } ?? ""
      throw .configuration(
        "\(path): \(Escaping.quoted(key)) is not a setting share knows\(guess) (the settings: \(known.joined(separator: ", ")))")
    }
    do {
      return try JSONCoding.decoder().decode(Settings.self, from: data)
    } catch {
      throw .configuration("\(path) is not valid settings JSON: \(describe(error, fields: fields))")
    }
  }

  /// Why the settings could not be decoded: the first setting that cannot be on its own, and
  /// what it must be (JSON's own words, "not valid JSON", for a number too large to hold).
  static func describe(_ error: any Error, fields: [String: Any]) -> String {
    for (key, wanted) in expected {
      guard let value = fields[key], !(value is NSNull),
        let alone = try? JSONSerialization.data(withJSONObject: [key: value], options: .fragmentsAllowed),
        (try? JSONCoding.decoder().decode(Settings.self, from: alone)) == nil
      else { continue }
      let written = (try? JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed))
        .map { String(decoding: $0, as: UTF8.self) }
      return "\(key) must be \(wanted)" + (written.map { ", not \(Escaping.escaped($0, maximumLength: 40))" } ?? "")
    }
    return error.localizedDescription
  }
}
