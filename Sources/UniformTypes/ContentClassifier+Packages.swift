/// Arch Linux packages by content: a tar whose entries hold `.PKGINFO` (and an `.INSTALL`
/// scriptlet that pacman runs), uncompressed or gzip-compressed (review 18: `.pkg.tar` and
/// `.pkg.tar.gz` were accepted as archives). xz, bzip2 and zstd tars are not opened: those are
/// refused by name only.
///
/// macOS flat installer packages by content too: a xar archive whose table of contents names a
/// `Distribution` (a product archive) or `PackageInfo` (a component package), which Installer
/// runs the scripts of (review 33: one named `.xar` was accepted as an archive).
extension ContentClassifier {
  static let archPackage: TypeIdentifier = "org.archlinux.package-tar"
  static let flatInstallerPackage: TypeIdentifier = "com.apple.installer-package-archive"

  /// The installer package a head of `type` shows, with the evidence: a pacman package or a
  /// macOS flat package; nil for neither.
  static func installerPackage(_ head: UnsafeRawBufferPointer, type: TypeIdentifier, registry: TypeRegistry) -> (
    TypeIdentifier, String
  )? {
    if let evidence = packageInTar(head, type: type, registry: registry) { return (archPackage, evidence) }
    return flatPackageTableOfContents(head).map { (flatInstallerPackage, "xar archive whose table of contents names \($0)") }
  }

  /// What a xar archive's table of contents (zlib-compressed XML after the header) names that
  /// makes it a macOS installer package (`Distribution`, `PackageInfo`), as far as the head holds it.
  static func flatPackageTableOfContents(_ head: UnsafeRawBufferPointer) -> String? {
    guard startsWith(head, Array("xar!".utf8)), head.count > 28 else { return nil }
    let headerSize = Int(head[4]) << 8 | Int(head[5])
    guard headerSize >= 28, headerSize < head.count,
      let toc = Inflate.inflated(UnsafeRawBufferPointer(rebasing: head[headerSize...]), format: .gzip, limit: ContentSniffer.headLength)
    else { return nil }
    return toc.withUnsafeBytes { toc in
      ["Distribution", "PackageInfo"].first { ByteSearch.contains(Array("<name>\($0)</name>".utf8), in: toc) }
    }
  }

  /// Evidence that a tar or gzip `type`d head is a pacman package; nil when it is not one.
  static func packageInTar(_ head: UnsafeRawBufferPointer, type: TypeIdentifier, registry: TypeRegistry) -> String? {
    if registry.conforms(type, to: "public.tar-archive") {
      return pacmanMetadata(in: head).map { "tar archive with \($0) (a pacman package)" }
    }
    if registry.conforms(type, to: "org.gnu.gnu-zip-archive"),
      let tar = Inflate.inflated(head, format: .gzip, limit: ContentSniffer.headLength)
    {
      return tar.withUnsafeBytes { pacmanMetadata(in: $0) }.map { "gzip-compressed tar with \($0) (a pacman package)" }
    }
    return nil
  }

  /// The name of the first `.PKGINFO` entry among the tar headers in `head` (POSIX ustar or GNU,
  /// walked by their sizes; the walk stops at the first header that is neither).
  static func pacmanMetadata(in head: UnsafeRawBufferPointer) -> String? {
    var offset = 0
    while offset + 512 <= head.count {
      let magic = Array(head[(offset + 257)..<(offset + 262)])
      guard magic == Array("ustar".utf8), let size = octal(head, offset + 124, 12) else { return nil }
      let name = cString(head, offset, 100)
      if name == ".PKGINFO" || name == "./.PKGINFO" { return name }
      offset += 512 + (size + 511) / 512 * 512
    }
    return nil
  }

  /// A NUL- or space-terminated octal field; nil for the base-256 form or any other byte.
  private static func octal(_ head: UnsafeRawBufferPointer, _ start: Int, _ length: Int) -> Int? {
    var value = 0
    for index in start..<(start + length) {
      let byte = head[index]
      if byte == 0 || byte == UInt8(ascii: " ") {
        if value > 0 { break } else { continue }
      }
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7"), value < Int.max >> 4 else { return nil }
      value = value * 8 + Int(byte - UInt8(ascii: "0"))
    }
    return value
  }

  private static func cString(_ head: UnsafeRawBufferPointer, _ start: Int, _ length: Int) -> String {
    let field = head[start..<(start + length)]
    let end = field.firstIndex(of: 0) ?? field.endIndex
    return String(decoding: UnsafeRawBufferPointer(rebasing: head[start..<end]), as: UTF8.self)
  }
}
