import Foundation
import Glibc

/// One peer for end-to-end tests: a share home (`--home`) in a temporary folder of its own, with
/// a scratch folder for files to send and a private `HOME`, so that nothing touches the real
/// user's files. Removed, with everything in it, when it goes away.
final class ShareHome: Sendable {
  /// The temporary folder holding everything below.
  let root: URL
  /// What `--home` names.
  let home: URL
  /// Files to send live here, outside the home.
  let files: URL
  /// The device name, written to the home's settings so that it does not depend on the host.
  let name: String
  /// The unprivileged user that owns this home and runs its `share` commands; nil: this
  /// process's user (root, on the project's machines).
  let user: TestUser?

  init(name: String, user: TestUser? = nil) throws {
    self.name = name
    self.user = user
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-e2e-\(UUID().uuidString)")
    home = root.appendingPathComponent("home")
    files = root.appendingPathComponent("files")
    let fileManager = FileManager.default
    for dir in [home, files, root.appendingPathComponent("user")] {
      try fileManager.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    let settings = try JSONSerialization.data(withJSONObject: ["name": name])
    try settings.write(to: home.appendingPathComponent("settings.json"))
    try user?.own(root)
  }

  deinit { try? FileManager.default.removeItem(at: root) }

  var documents: URL { home.appendingPathComponent("Documents") }
  var inbox: URL { documents.appendingPathComponent("Inbox") }
  var staging: URL { documents.appendingPathComponent(".share/staging") }

  /// The environment `share` runs with: this process's, without anything that could point share
  /// at another home or change its colours, and with `HOME` in the scratch area.
  func environment(_ overrides: [String: String?] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for key in environment.keys where key.hasPrefix("XDG_") || key == "SHARE_HOME" || key == "NO_COLOR" {
      environment[key] = nil
    }
    environment["HOME"] = root.appendingPathComponent("user").path
    for (key, value) in overrides { environment[key] = value }
    return environment
  }

  /// Starts `share` with exactly `arguments` (no `--home` added).
  func start(
    _ arguments: [String], environment overrides: [String: String?] = [:], stdin: Data? = nil, stderr: FileHandle? = nil
  ) throws -> ChildProcess {
    let binary = try ShareBinary.require()
    let (executable, arguments) = user?.wrap(binary, arguments) ?? (binary, arguments)
    return try ChildProcess(
      executable: executable, arguments: arguments, environment: environment(overrides), stdin: stdin, stderr: stderr)
  }

  /// Runs `share` with exactly `arguments` (no `--home` added) and waits for it.
  func run(
    _ arguments: [String], environment overrides: [String: String?] = [:], stdin: Data? = nil,
    timeout: Duration = .seconds(60)
  ) throws -> CommandResult {
    try start(arguments, environment: overrides, stdin: stdin).wait(timeout: timeout)
  }

  /// Runs `share --home HOME ARGUMENTS...` and waits for it.
  func share(_ arguments: String..., timeout: Duration = .seconds(60)) throws -> CommandResult {
    try run(["--home", home.path] + arguments, timeout: timeout)
  }

  /// Starts `share --home HOME ARGUMENTS...` in the background.
  func startShare(_ arguments: String...) throws -> ChildProcess {
    try start(["--home", home.path] + arguments)
  }

  /// This home's own type declarations (`--home DIR` reads `DIR/Declarations.plist`), replacing
  /// the shipped default.
  var declarations: URL { home.appendingPathComponent("Declarations.plist") }

  /// Gives this home declarations that accept any item and exclude nothing: a realistic
  /// configuration for a user who wants a plain transport (backups, disk images, random data),
  /// and what the transport tests need to move large binary files that the default refuses as
  /// unknown data (`public.data`).
  func acceptEverything() throws {
    try writeDeclarations(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
        <key>CFBundleDocumentTypes</key>
        <array>
          <dict>
            <key>CFBundleTypeName</key>
            <string>Everything</string>
            <key>LSItemContentTypes</key>
            <array><string>public.item</string></array>
          </dict>
        </array>
        <key>ExcludedActivityTypes</key>
        <array/>
      </dict>
      </plist>
      """)
  }

  /// Writes this home's `Declarations.plist`.
  func writeDeclarations(_ plist: String) throws {
    try Data(plist.utf8).write(to: declarations)
  }

  /// Starts `share daemon` on a free loopback port and waits until it listens.
  /// Starts this home's daemon. Senders in `trusting` become its contacts first, so their sends
  /// are accepted without anyone running 'share accept' (a stranger's ask waits for a person).
  func startDaemon(json: Bool = false, trusting senders: [ShareHome] = [], arguments extra: [String] = []) throws -> Daemon {
    for sender in senders {
      // A hostile name (control characters) cannot be a contact's: such a sender is trusted
      // under its ID's first digits, and still says its own name in its Hello.
      let named = sender.name.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
      let result = try run(["--home", home.path, "trust", "add", try sender.deviceID()] + (named ? ["--name", sender.name] : []))
      guard result.exited(with: 0) else { throw HarnessError("'share trust add' failed:\n\(result)") }
    }
    return try Daemon(home: self, json: json, extra: extra)
  }

  /// This device's ID as `share id --json` prints it.
  func deviceID() throws -> String {
    let result = try share("id", "--json")
    guard result.exited(with: 0), let object = try parseJSONLines(result.stdoutText).first,
      let id = object["id"] as? String
    else { throw HarnessError("'share id --json' did not print an ID:\n\(result)") }
    return id
  }

  /// The Inbox as `share inbox list --json` prints it, one object per item.
  func listedItems() throws -> [[String: Any]] {
    let result = try share("inbox", "list", "--json")
    guard result.exited(with: 0) else { throw HarnessError("'share inbox list --json' failed:\n\(result)") }
    return try parseJSONLines(result.stdoutText)
  }

  /// The names in the Inbox folder, straight from the disk.
  func inboxNames() -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? [])
  }

  /// What is in the staging folder, straight from the disk, with sizes.
  func stagingEntries() -> [(name: String, size: Int64)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    return names.map { ($0, fileSize(staging.appendingPathComponent($0)) ?? -1) }
  }

  /// Writes a file to send.
  @discardableResult
  func file(_ name: String, _ contents: String) throws -> URL {
    let url = files.appendingPathComponent(name)
    guard FileManager.default.createFile(atPath: url.path, contents: Data(contents.utf8)) else {
      throw HarnessError("cannot create \(url.path)")
    }
    return url
  }

  /// Writes a file of `size` random bytes to send.
  func randomFile(_ name: String, size: Int) throws -> URL {
    let url = files.appendingPathComponent(name)
    try writeRandomBytes(size, to: url)
    return url
  }

  /// Writes a real PNG image (1×1 pixel, as libmagic and any viewer recognise it) to send.
  func pngFile(_ name: String) throws -> URL {
    let url = files.appendingPathComponent(name)
    try tinyPNG.write(to: url)
    return url
  }

  /// Copies `source` (a program, say) to a file to send under `name`.
  func copy(_ source: URL, as name: String) throws -> URL {
    let url = files.appendingPathComponent(name)
    try FileManager.default.copyItem(at: source, to: url)
    return url
  }

  /// Makes a sparse file of `size` zero bytes to send: large, but instant and taking no space.
  func sparseFile(_ name: String, size: Int) throws -> URL {
    let url = files.appendingPathComponent(name)
    let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw HarnessError("cannot create \(url.path): errno \(errno)") }
    defer { close(fd) }
    guard ftruncate(fd, off_t(size)) == 0 else { throw HarnessError("cannot size \(url.path): errno \(errno)") }
    return url
  }
}
