/// The type declarations compiled into share.
///
/// Identifiers follow Apple's where Apple has one (`public.jpeg`, `com.adobe.pdf`,
/// `org.openxmlformats.wordprocessingml.document`). share adds Linux kinds under their
/// projects' domains (`org.freedesktop.desktop-entry`, `org.debian.deb-archive`,
/// `org.appimage.appimage`...), plus three abstract types of its own:
/// `public.installer-package` (anything that installs software), `public.run-installer`
/// (self-extracting `.run` shell archives) and `com.microsoft.compound-document` (the OLE2
/// container of legacy Office files and MSI packages). Inbox/TYPES.md lists them all.
enum BuiltinTypes {
  /// All built-in declarations, parents before children where it reads naturally.
  static let all: [TypeDeclaration] = {
    var list: [TypeDeclaration] = []
    func type(
      _ id: String, _ description: String, _ parents: [String], ext: [String] = [],
      mime: [String] = [], sig: Bool = false
    ) {
      list.append(
        TypeDeclaration(
          identifier: TypeIdentifier(id), description: description,
          conformsTo: parents.map { TypeIdentifier($0) }, filenameExtensions: ext,
          mimeTypes: mime, origin: .builtin, recognizedByContent: sig))
    }

    // Roots.
    type("public.item", "item", [])
    type("public.content", "content", ["public.item"])
    type("public.data", "data", ["public.item"], mime: ["application/octet-stream"])
    type("public.composite-content", "composite content", ["public.content"])
    type("public.directory", "directory", ["public.item"])
    type("public.folder", "folder", ["public.directory"], mime: ["inode/directory"])
    type("public.url", "URL", ["public.data"], mime: ["text/x-uri", "text/uri-list"])

    // Text. `sig` on public.text: binary content never confirms a text name.
    type("public.text", "text", ["public.data", "public.content"], sig: true)
    type("public.plain-text", "plain text", ["public.text"], ext: ["txt", "text"], mime: ["text/plain"])
    type("public.utf8-plain-text", "UTF-8 plain text", ["public.plain-text"])
    type("public.delimited-values-text", "delimited values text", ["public.text"])
    type(
      "public.comma-separated-values-text", "CSV text", ["public.delimited-values-text"], ext: ["csv"],
      mime: ["text/csv", "text/x-csv", "text/comma-separated-values", "text/x-comma-separated-values"])
    type(
      "public.tab-separated-values-text", "TSV text", ["public.delimited-values-text"], ext: ["tsv", "tab"],
      mime: ["text/tab-separated-values"])
    type("public.html", "HTML document", ["public.text"], ext: ["html", "htm", "shtml"], mime: ["text/html"])
    type("public.xml", "XML document", ["public.text"], ext: ["xml"], mime: ["application/xml", "text/xml"])
    type("public.json", "JSON document", ["public.text"], ext: ["json"], mime: ["application/json", "text/json"])
    type(
      "public.yaml", "YAML document", ["public.text"], ext: ["yaml", "yml"],
      mime: ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"])
    type(
      "net.daringfireball.markdown", "Markdown document", ["public.plain-text"], ext: ["md", "markdown", "mkd"],
      mime: ["text/markdown", "text/x-markdown"])
    type(
      "public.rtf", "RTF document", ["public.text", "public.composite-content"], ext: ["rtf"],
      mime: ["text/rtf", "application/rtf"], sig: true)
    type(
      "public.vcard", "vCard contact", ["public.text"], ext: ["vcf", "vcard"],
      mime: ["text/vcard", "text/x-vcard", "text/directory"])
    type(
      "org.freedesktop.desktop-entry", "desktop entry", ["public.plain-text"], ext: ["desktop", "kdelnk"],
      mime: ["application/x-desktop"])

    // Source code and scripts.
    type("public.source-code", "source code", ["public.plain-text"])
    type("public.c-source", "C source", ["public.source-code"], ext: ["c"], mime: ["text/x-csrc", "text/x-c"])
    type("public.c-header", "C header", ["public.source-code"], ext: ["h"], mime: ["text/x-chdr"])
    type(
      "public.c-plus-plus-source", "C++ source", ["public.source-code"], ext: ["cpp", "cc", "cxx", "c++"],
      mime: ["text/x-c++src", "text/x-c++"])
    type("public.swift-source", "Swift source", ["public.source-code"], ext: ["swift"], mime: ["text/x-swift"])
    type("com.sun.java-source", "Java source", ["public.source-code"], ext: ["java"], mime: ["text/x-java"])
    type("public.script", "script", ["public.source-code"])
    type(
      "public.shell-script", "shell script", ["public.script"],
      ext: ["sh", "bash", "zsh", "ksh", "csh", "tcsh", "dash", "fish", "command"],
      mime: ["application/x-shellscript", "text/x-shellscript", "application/x-sh", "text/x-sh"])
    type(
      "public.python-script", "Python script", ["public.script"], ext: ["py", "pyw", "py3", "pyi", "pyz"],
      mime: [
        "text/x-python", "text/x-python3", "text/x-script.python", "application/x-python",
        "application/x-python3", "text/x-python-script",
      ])
    type(
      "public.perl-script", "Perl script", ["public.script"], ext: ["pl", "pm", "perl"],
      mime: ["application/x-perl", "text/x-perl", "text/x-script.perl"])
    type(
      "public.ruby-script", "Ruby script", ["public.script"], ext: ["rb"],
      mime: ["application/x-ruby", "text/x-ruby", "text/x-script.ruby"])
    type(
      "public.php-script", "PHP script", ["public.script"], ext: ["php", "phtml", "phar"],
      mime: ["application/x-php", "text/x-php"])
    type(
      "com.netscape.javascript-source", "JavaScript source", ["public.script"], ext: ["js", "mjs", "cjs", "jsm"],
      mime: [
        "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript",
        "text/ecmascript", "text/x-script.node",
      ])
    type(
      "com.microsoft.batch-file", "Windows batch file", ["public.script"], ext: ["bat", "cmd"],
      mime: ["application/x-bat", "text/x-msdos-batch", "application/x-msdos-batch"])
    type(
      "com.microsoft.powershell-script", "PowerShell script", ["public.script"], ext: ["ps1", "psm1", "psd1"],
      mime: ["application/x-powershell", "text/x-powershell"])
    type(
      "com.microsoft.vbscript", "VBScript", ["public.script"], ext: ["vbs", "vbe", "wsf"],
      mime: ["text/vbscript", "application/x-vbscript"])

    // Images.
    type("public.image", "image", ["public.data", "public.content"])
    type("public.jpeg", "JPEG image", ["public.image"], ext: ["jpg", "jpeg", "jpe", "jfif"], mime: ["image/jpeg", "image/pjpeg"], sig: true)
    type("public.png", "PNG image", ["public.image"], ext: ["png"], mime: ["image/png", "image/x-png"], sig: true)
    type("com.compuserve.gif", "GIF image", ["public.image"], ext: ["gif"], mime: ["image/gif"], sig: true)
    type("public.tiff", "TIFF image", ["public.image"], ext: ["tif", "tiff"], mime: ["image/tiff"], sig: true)
    type("public.heif-standard", "HEIF image", ["public.image"], ext: ["heif", "hif"], mime: ["image/heif", "image/heif-sequence"], sig: true)
    type("public.heic", "HEIC image", ["public.heif-standard"], ext: ["heic"], mime: ["image/heic", "image/heic-sequence"], sig: true)
    type("org.webmproject.webp", "WebP image", ["public.image"], ext: ["webp"], mime: ["image/webp"], sig: true)
    type("com.microsoft.bmp", "BMP image", ["public.image"], ext: ["bmp", "dib"], mime: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"], sig: true)
    type("com.microsoft.ico", "Windows icon", ["public.image"], ext: ["ico"], mime: ["image/vnd.microsoft.icon", "image/x-icon"], sig: true)
    type("public.svg-image", "SVG image", ["public.image", "public.xml"], ext: ["svg"], mime: ["image/svg+xml"])

    // Documents.
    type("com.adobe.pdf", "PDF document", ["public.data", "public.composite-content"], ext: ["pdf"], mime: ["application/pdf", "application/x-pdf", "application/acrobat"], sig: true)
    type("public.spreadsheet", "spreadsheet", ["public.content"])
    type("public.presentation", "presentation", ["public.composite-content"])
    type("org.openxmlformats.openxml", "Office Open XML document", ["public.zip-archive", "public.composite-content"], sig: true)
    type(
      "org.openxmlformats.wordprocessingml.document", "Word document (docx)", ["org.openxmlformats.openxml"],
      ext: ["docx"], mime: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"])
    type(
      "org.openxmlformats.spreadsheetml.sheet", "Excel workbook (xlsx)", ["org.openxmlformats.openxml", "public.spreadsheet"],
      ext: ["xlsx"], mime: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"])
    type(
      "org.openxmlformats.presentationml.presentation", "PowerPoint presentation (pptx)",
      ["org.openxmlformats.openxml", "public.presentation"],
      ext: ["pptx"], mime: ["application/vnd.openxmlformats-officedocument.presentationml.presentation"])
    type("org.oasis-open.opendocument", "OpenDocument file", ["public.zip-archive", "public.composite-content"], sig: true)
    type(
      "org.oasis-open.opendocument.text", "OpenDocument text (odt)", ["org.oasis-open.opendocument"],
      ext: ["odt"], mime: ["application/vnd.oasis.opendocument.text"])
    type(
      "org.oasis-open.opendocument.spreadsheet", "OpenDocument spreadsheet (ods)",
      ["org.oasis-open.opendocument", "public.spreadsheet"],
      ext: ["ods"], mime: ["application/vnd.oasis.opendocument.spreadsheet"])
    type(
      "org.oasis-open.opendocument.presentation", "OpenDocument presentation (odp)",
      ["org.oasis-open.opendocument", "public.presentation"],
      ext: ["odp"], mime: ["application/vnd.oasis.opendocument.presentation"])
    type(
      "com.microsoft.compound-document", "OLE2 compound document", ["public.data"],
      mime: ["application/x-ole-storage", "application/cdfv2", "application/x-cfb", "application/vnd.ms-office"], sig: true)
    type(
      "com.microsoft.word.doc", "Word 97-2003 document (doc)", ["com.microsoft.compound-document", "public.composite-content"],
      ext: ["doc", "dot"], mime: ["application/msword"])
    type(
      "com.microsoft.excel.xls", "Excel 97-2003 workbook (xls)", ["com.microsoft.compound-document", "public.spreadsheet"],
      ext: ["xls", "xlt"], mime: ["application/vnd.ms-excel"])
    type(
      "com.microsoft.powerpoint.ppt", "PowerPoint 97-2003 presentation (ppt)",
      ["com.microsoft.compound-document", "public.presentation"],
      ext: ["ppt", "pps", "pot"], mime: ["application/vnd.ms-powerpoint"])

    // Audio and video.
    type("public.audiovisual-content", "audiovisual content", ["public.data", "public.content"])
    type("public.movie", "movie", ["public.audiovisual-content"])
    type("public.audio", "audio", ["public.audiovisual-content"])
    type("public.mpeg-4", "MPEG-4 movie", ["public.movie"], ext: ["mp4", "m4v"], mime: ["video/mp4", "application/mp4", "video/x-m4v"], sig: true)
    type("public.mpeg-4-audio", "MPEG-4 audio", ["public.mpeg-4", "public.audio"], ext: ["m4a", "m4b"], mime: ["audio/mp4", "audio/x-m4a", "audio/m4a"])
    type("com.apple.quicktime-movie", "QuickTime movie", ["public.movie"], ext: ["mov", "qt"], mime: ["video/quicktime"], sig: true)
    type("public.avi", "AVI movie", ["public.movie"], ext: ["avi"], mime: ["video/x-msvideo", "video/avi", "video/msvideo"], sig: true)
    type("org.webmproject.webm", "WebM movie", ["public.movie"], ext: ["webm"], mime: ["video/webm"], sig: true)
    type("org.matroska.mkv", "Matroska movie", ["public.movie"], ext: ["mkv"], mime: ["video/x-matroska"], sig: true)
    type("public.mp3", "MP3 audio", ["public.audio"], ext: ["mp3"], mime: ["audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/x-mpeg"], sig: true)
    type("com.microsoft.waveform-audio", "WAVE audio", ["public.audio"], ext: ["wav", "wave"], mime: ["audio/wav", "audio/x-wav", "audio/vnd.wave", "audio/wave"], sig: true)
    type("org.xiph.flac", "FLAC audio", ["public.audio"], ext: ["flac"], mime: ["audio/flac", "audio/x-flac"], sig: true)
    type("public.font", "font", ["public.data", "public.content"])

    // Archives.
    type("public.archive", "archive", ["public.data"])
    type("public.zip-archive", "ZIP archive", ["public.archive"], ext: ["zip"], mime: ["application/zip", "application/x-zip-compressed", "application/x-zip"], sig: true)
    type("org.gnu.gnu-zip-archive", "gzip archive", ["public.archive"], ext: ["gz", "gzip"], mime: ["application/gzip", "application/x-gzip"], sig: true)
    type("org.gnu.gnu-zip-tar-archive", "gzip-compressed tar archive", ["org.gnu.gnu-zip-archive"], ext: ["tgz", "tar.gz"], mime: ["application/x-compressed-tar", "application/x-gtar-compressed"])
    type("public.tar-archive", "tar archive", ["public.archive"], ext: ["tar"], mime: ["application/x-tar", "application/x-gtar", "application/x-ustar"], sig: true)
    type("public.bzip2-archive", "bzip2 archive", ["public.archive"], ext: ["bz2", "bzip2", "bz"], mime: ["application/x-bzip2", "application/x-bzip"], sig: true)
    type("org.tukaani.xz-archive", "xz archive", ["public.archive"], ext: ["xz"], mime: ["application/x-xz"], sig: true)
    type("org.7-zip.7-zip-archive", "7-Zip archive", ["public.archive"], ext: ["7z"], mime: ["application/x-7z-compressed"], sig: true)
    type("com.rarlab.rar-archive", "RAR archive", ["public.archive"], ext: ["rar"], mime: ["application/vnd.rar", "application/x-rar", "application/x-rar-compressed"], sig: true)
    type("public.disk-image", "disk image", ["public.data"])
    type("public.iso-image", "ISO disk image", ["public.disk-image"], ext: ["iso"], mime: ["application/x-cd-image", "application/x-iso9660-image"])

    // Executables and installers.
    type("public.executable", "executable", ["public.item"])
    type(
      "public.unix-executable", "Unix executable (ELF)", ["public.data", "public.executable"], ext: ["elf"],
      mime: [
        "application/x-executable", "application/x-pie-executable", "application/x-sharedlib",
        "application/x-elf", "application/x-object",
      ], sig: true)
    type(
      "com.microsoft.windows-executable", "Windows executable", ["public.data", "public.executable"],
      ext: ["exe", "dll", "com", "scr", "cpl", "sys", "efi"],
      mime: [
        "application/vnd.microsoft.portable-executable", "application/x-msdownload",
        "application/x-ms-dos-executable", "application/x-dosexec", "application/x-msdos-program",
        "application/x-ms-ne-executable",
      ], sig: true)
    type(
      "com.sun.java-archive", "Java archive", ["public.zip-archive", "public.executable"], ext: ["jar", "war", "ear"],
      mime: ["application/java-archive", "application/x-java-archive"])
    type("public.installer-package", "installer package", ["public.data"])
    type(
      "org.debian.deb-archive", "Debian package", ["public.archive", "public.installer-package"], ext: ["deb", "udeb"],
      mime: ["application/vnd.debian.binary-package", "application/x-deb", "application/x-debian-package"], sig: true)
    type(
      "com.redhat.rpm-archive", "RPM package", ["public.archive", "public.installer-package"], ext: ["rpm"],
      mime: ["application/x-rpm", "application/x-redhat-package-manager", "application/x-source-rpm"], sig: true)
    type(
      "org.appimage.appimage", "AppImage", ["public.unix-executable", "public.installer-package"], ext: ["appimage"],
      mime: ["application/vnd.appimage", "application/x-iso9660-appimage"])
    type(
      "com.android.package-archive", "Android package", ["com.sun.java-archive", "public.installer-package"],
      ext: ["apk", "aab", "xapk"], mime: ["application/vnd.android.package-archive"])
    type(
      "com.microsoft.windows-installer", "Windows installer package",
      ["com.microsoft.compound-document", "public.installer-package", "public.executable"], ext: ["msi", "msp", "msix", "appx"],
      mime: ["application/x-msi", "application/x-ms-installer", "application/x-ole-storage-msi"])
    type(
      "org.flatpak.flatpakref", "Flatpak reference", ["public.plain-text", "public.installer-package"], ext: ["flatpakref"],
      mime: ["application/vnd.flatpak.ref"])
    type(
      "org.flatpak.flatpakrepo", "Flatpak repository", ["public.plain-text", "public.installer-package"], ext: ["flatpakrepo"],
      mime: ["application/vnd.flatpak.repo"])
    type("org.flatpak.flatpak", "Flatpak bundle", ["public.installer-package"], ext: ["flatpak"], mime: ["application/vnd.flatpak"])
    type("io.snapcraft.snap", "Snap package", ["public.installer-package"], ext: ["snap"], mime: ["application/vnd.snap"])
    type("public.run-installer", "self-extracting installer (.run)", ["public.shell-script", "public.installer-package"], ext: ["run"])
    return list
  }()
}
