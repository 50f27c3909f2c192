import Foundation

/// Where one share home keeps its files.
///
/// With `--home DIR` (or `SHARE_HOME`) everything lives under DIR, so several peers can live on
/// one machine. Otherwise the XDG locations: configuration and identity under
/// `$XDG_CONFIG_HOME/share` (`~/.config/share`), received items under `~/Documents/Inbox`, the
/// control socket under `$XDG_RUNTIME_DIR/share`.
package struct SharePaths: Sendable, Equatable {
  /// Identity, settings, trust store, declarations.
  package var config: URL
  /// `Documents`, holding `Inbox` and the staging area.
  package var documents: URL
  /// Sockets and pid files (owner-only).
  package var runtime: URL

  package var identity: URL { config.appendingPathComponent("identity") }
  package var settings: URL { config.appendingPathComponent("settings.json") }
  package var trustStore: URL { config.appendingPathComponent("trust.json") }
  /// Trust on first use: the device ID each peer name had when first sent to.
  package var knownPeers: URL { config.appendingPathComponent("known_peers.json") }
  /// A home's own declarations, replacing the shipped default when present.
  package var declarations: URL { config.appendingPathComponent("Declarations.plist") }
  /// libmagic's database cut to what can print a MIME type, kept between processes
  /// (`CutMagicFile`): rebuilt whenever missing, damaged or out of date, so it may be deleted.
  package var magicCutFile: URL { config.appendingPathComponent("cache/magic-mime.cut") }
  package var inbox: URL { documents.appendingPathComponent("Inbox") }

  /// Whether `config` may be a share home: an empty folder (one to be), or one holding something
  /// share writes there (its identity, settings, contacts, pins, declarations) or an Inbox. A
  /// file, or a folder of other things (a mistyped `--home ~/Documents`), is not (review 45: both
  /// were taken for an empty home).
  package var isHome: Bool {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: config.path, isDirectory: &isFolder), isFolder.boolValue else { return false }
    if (try? FileManager.default.contentsOfDirectory(atPath: config.path).isEmpty) == true { return true }
    return [identity, settings, trustStore, knownPeers, declarations, inbox].contains { FileManager.default.fileExists(atPath: $0.path) }
  }
  /// The daemon's control socket: in the runtime folder, or — when that path is too long for a
  /// Unix socket (107 bytes) — `/tmp/share-UID/HASH.sock`, named after the runtime folder so the
  /// daemon and the commands agree. The daemon creates that shared folder owner-only and refuses
  /// to use one that is not (see `ControlSocketFolder`); the commands check that the socket is
  /// served by their own user, and the daemon checks the caller.
  package var controlSocket: URL {
    guard controlSocketIsInSharedFolder else { return preferredControlSocket }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in runtime.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return URL(fileURLWithPath: "/tmp/share-\(getuid())").appendingPathComponent(String(hash, radix: 16) + ".sock")
  }

  /// Whether the control socket lives in the shared fallback folder under `/tmp` (whose name
  /// anyone could take first) rather than in the runtime folder.
  package var controlSocketIsInSharedFolder: Bool { preferredControlSocket.path.utf8.count > 100 }

  private var preferredControlSocket: URL { runtime.appendingPathComponent("control.sock") }

  package init(config: URL, documents: URL, runtime: URL) {
    self.config = config
    self.documents = documents
    self.runtime = runtime
  }

  /// Everything under one folder.
  package init(home: URL) {
    self.init(
      config: home, documents: home.appendingPathComponent("Documents"),
      runtime: home.appendingPathComponent("run"))
  }

  /// The paths for an explicit home, `SHARE_HOME`, or the XDG defaults, in that order.
  package static func resolve(home: String?, environment: [String: String]) -> SharePaths {
    if let home = home ?? environment["SHARE_HOME"], !home.isEmpty {
      return SharePaths(home: URL(fileURLWithPath: home).standardizedFileURL)
    }
    let userHome =
      environment["HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser
    func xdg(_ key: String, _ fallback: String) -> URL {
      if let value = environment[key], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
      return userHome.appendingPathComponent(fallback)
    }
    let config = xdg("XDG_CONFIG_HOME", ".config").appendingPathComponent("share")
    let runtime: URL
    if let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") {
      runtime = URL(fileURLWithPath: dir).appendingPathComponent("share")
    } else {
      runtime = xdg("XDG_STATE_HOME", ".local/state").appendingPathComponent("share/run")
    }
    return SharePaths(config: config, documents: userHome.appendingPathComponent("Documents"), runtime: runtime)
  }
}
