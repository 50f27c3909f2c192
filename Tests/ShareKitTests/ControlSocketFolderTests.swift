import Foundation
import Glibc
import Testing

@testable import ShareKit

/// The shared fallback folder of the control socket is used only when it is a real folder of
/// this user's with mode 0700; anything else is refused with the reason and left as it is.
@Suite struct ControlSocketFolderTests {
  let root: URL

  init() throws {
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-socket-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  func mode(_ url: URL) -> mode_t {
    var info = stat()
    return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : 0
  }

  func refusal(_ folder: URL) -> String? {
    do {
      try ControlSocketFolder.prepareShared(folder.path)
      return nil
    } catch {
      return error.description
    }
  }

  @Test func aMissingFolderIsCreatedOwnerOnlyAndAcceptedAgainLater() {
    let folder = root.appendingPathComponent("share-1")
    #expect(refusal(folder) == nil)
    #expect(mode(folder) == 0o700)
    #expect(refusal(folder) == nil)
  }

  @Test func aSymbolicLinkIsRefusedAndItsTargetKeepsItsMode() throws {
    let target = root.appendingPathComponent("theirs")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    chmod(target.path, 0o777)
    let folder = root.appendingPathComponent("share-1")
    #expect(symlink(target.path, folder.path) == 0)
    let why = refusal(folder)
    #expect(why?.contains("is a symbolic link") == true, "\(why ?? "accepted")")
    #expect(mode(target) == 0o777)
  }

  @Test func aFolderWithLooserModeIsRefusedAndLeftAsItIs() throws {
    let folder = root.appendingPathComponent("share-1")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    chmod(folder.path, 0o755)
    let why = refusal(folder)
    #expect(why?.contains("mode 755") == true, "\(why ?? "accepted")")
    #expect(mode(folder) == 0o755)
  }

  @Test func aFolderOfAnotherUserIsRefused() throws {
    guard getuid() == 0 else { return }  // only root can give a folder away
    let folder = root.appendingPathComponent("share-1")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    chmod(folder.path, 0o700)
    #expect(chown(folder.path, 65534, 65534) == 0)
    let why = refusal(folder)
    #expect(why?.contains("belongs to user 65534") == true, "\(why ?? "accepted")")
  }

  @Test func aFileInThePlaceOfTheFolderIsRefused() throws {
    let folder = root.appendingPathComponent("share-1")
    #expect(FileManager.default.createFile(atPath: folder.path, contents: Data()))
    let why = refusal(folder)
    #expect(why?.contains("is not a folder") == true, "\(why ?? "accepted")")
  }
}
