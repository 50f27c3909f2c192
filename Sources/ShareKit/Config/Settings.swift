import Foundation

/// A home's settings file (`settings.json`): what the owner chose, all optional.
public struct Settings: Codable, Sendable, Equatable {
  /// The device name peers see; the host name when unset.
  public var name: String?

  public init(name: String? = nil) { self.name = name }

  /// Reads the settings; a missing file is the defaults, a broken one an error.
  public static func load(from url: URL) throws(ShareError) -> Settings {
    guard let data = FileManager.default.contents(atPath: url.path) else { return Settings() }
    do {
      let decoder = JSONDecoder()
      decoder.keyDecodingStrategy = .convertFromSnakeCase
      return try decoder.decode(Settings.self, from: data)
    } catch {
      throw .configuration("\(url.path) is not valid settings JSON: \(error.localizedDescription)")
    }
  }

  /// The host name, the default device name.
  public static var hostName: String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "share" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "share" : name
  }
}
