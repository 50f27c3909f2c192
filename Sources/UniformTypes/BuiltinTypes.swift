/// The type declarations compiled into share.
///
/// Identifiers follow Apple's where Apple has one (`public.jpeg`, `com.adobe.pdf`,
/// `org.openxmlformats.wordprocessingml.document`). share adds Linux kinds under their
/// projects' domains (`org.freedesktop.desktop-entry`, `org.debian.deb-archive`,
/// `org.appimage.appimage`...), plus three abstract types of its own:
/// `public.installer-package` (anything that installs software), `public.run-installer`
/// (self-extracting `.run` shell archives) and `com.microsoft.compound-document` (the OLE2
/// container of legacy Office files and MSI packages). Inbox/TYPES.md lists them all.
/// Collects declarations in order; `BuiltinTypes` fills one per family.
struct BuiltinTypeList {
  private(set) var declarations: [TypeDeclaration] = []
  /// Extensions whose type declared here is their only meaning (`soleMeaning`).
  private(set) var soleMeaningExtensions: Set<String> = []

  /// Adds a built-in type; `sig` marks a type content sniffing recognises whenever the bytes are
  /// of it, `text` one whose files may be plain text as well as binary; `names` are whole file
  /// names that mean it; `soleMeaning`, that its extensions mean it alone, not also what
  /// shared-mime-info's globs make of them (`TypeRegistry.types(forFilename:)`).
  mutating func type(
    _ id: String, _ description: String, _ parents: [String], ext: [String] = [], mime: [String] = [],
    sig: Bool = false, text: Bool = false, names: [String] = [], soleMeaning: Bool = false
  ) {
    if soleMeaning { soleMeaningExtensions.formUnion(ext.map { $0.lowercased() }) }
    declarations.append(
      TypeDeclaration(
        identifier: TypeIdentifier(id), description: description, conformsTo: parents.map { TypeIdentifier($0) },
        filenameExtensions: ext, mimeTypes: mime, origin: .builtin, recognizedByContent: sig, hasTextForm: text,
        filenames: names))
  }
}

enum BuiltinTypes {
  /// Every family's declarations.
  private static let list: BuiltinTypeList = {
    var list = BuiltinTypeList()
    for family in [
      roots, text, sourceCode, scripts, settingScripts, links, images, documents, openDocumentKinds, openOfficeDocuments,
      compressedDocuments, macroDocuments, media, fonts, archives, diskImages, security, appleDocuments, models, executables, installers,
      packages,
    ] {
      family(&list)
    }
    return list
  }()

  /// All built-in declarations, parents before children where it reads naturally.
  static let all: [TypeDeclaration] = list.declarations

  /// Extensions whose built-in type is their only meaning (`BuiltinTypeList.type(soleMeaning:)`).
  static let soleMeaningExtensions: Set<String> = list.soleMeaningExtensions

  /// Roots.
  static func roots(_ list: inout BuiltinTypeList) {
    list.type("public.item", "item", [])
    list.type("public.content", "content", ["public.item"])
    list.type("public.data", "data", ["public.item"], mime: ["application/octet-stream"])
    list.type("public.composite-content", "composite content", ["public.content"])
    list.type("public.directory", "directory", ["public.item"])
    list.type("public.folder", "folder", ["public.directory"], mime: ["inode/directory"])
    list.type("public.url", "URL", ["public.data"], mime: ["text/x-uri", "text/uri-list"])
  }

  /// Text.
  static func text(_ list: inout BuiltinTypeList) {
    list.type("public.text", "text", ["public.data", "public.content"], sig: true)
    list.type("public.plain-text", "plain text", ["public.text"], ext: ["txt", "text"], mime: ["text/plain"])
    list.type("public.utf8-plain-text", "UTF-8 plain text", ["public.plain-text"])
    list.type("public.delimited-values-text", "delimited values text", ["public.text"])
    list.type(
      "public.comma-separated-values-text", "CSV text", ["public.delimited-values-text"], ext: ["csv"],
      mime: ["text/csv", "text/x-csv", "text/comma-separated-values", "text/x-comma-separated-values"])
    list.type(
      "public.tab-separated-values-text", "TSV text", ["public.delimited-values-text"], ext: ["tsv", "tab"],
      mime: ["text/tab-separated-values"])
    list.type("public.html", "HTML document", ["public.text"], ext: ["html", "htm", "shtml"], mime: ["text/html"])
    list.type("public.xml", "XML document", ["public.text"], ext: ["xml"], mime: ["application/xml", "text/xml"])
    list.type("public.json", "JSON document", ["public.text"], ext: ["json"], mime: ["application/json", "text/json"])
    list.type(
      "public.yaml", "YAML document", ["public.text"], ext: ["yaml", "yml"],
      mime: ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"])
    list.type(
      "net.daringfireball.markdown", "Markdown document", ["public.plain-text"], ext: ["md", "markdown", "mkd"],
      mime: ["text/markdown", "text/x-markdown"])
    list.type(
      "public.rtf", "RTF document", ["public.text", "public.composite-content"], ext: ["rtf"],
      mime: ["text/rtf", "application/rtf"], sig: true)
    list.type(
      "public.vcard", "vCard contact", ["public.text"], ext: ["vcf", "vcard"],
      mime: ["text/vcard", "text/x-vcard", "text/directory"])
    list.type(
      "public.calendar-event", "calendar (iCalendar)", ["public.text"], ext: ["ics", "ical", "ifb", "vcs"],
      mime: ["text/calendar", "text/x-vcalendar", "application/ics"])
    list.type(
      "org.freedesktop.desktop-entry", "desktop entry", ["public.plain-text"], ext: ["desktop", "kdelnk"],
      mime: ["application/x-desktop", "application/x-kdelnk", "application/x-gnome-app-info"])
  }

  /// Source code that is not a script.
  static func sourceCode(_ list: inout BuiltinTypeList) {
    list.type("public.source-code", "source code", ["public.plain-text"])
    list.type("public.c-source", "C source", ["public.source-code"], ext: ["c"], mime: ["text/x-csrc", "text/x-c"])
    list.type("public.c-header", "C header", ["public.source-code"], ext: ["h"], mime: ["text/x-chdr"])
    list.type(
      "public.c-plus-plus-source", "C++ source", ["public.source-code"], ext: ["cpp", "cc", "cxx", "c++"],
      mime: ["text/x-c++src", "text/x-c++"])
    list.type("public.swift-source", "Swift source", ["public.source-code"], ext: ["swift"], mime: ["text/x-swift"])
    list.type("com.sun.java-source", "Java source", ["public.source-code"], ext: ["java"], mime: ["text/x-java"])
    // Not a script: it is compiled before it runs (the default refuses .js, not .ts). `.ts` and
    // `.mts` are also MPEG transport streams (shared-mime-info): the content settles which.
    list.type(
      "com.microsoft.typescript", "TypeScript source", ["public.source-code"], ext: ["ts", "mts", "cts"],
      mime: ["text/x-typescript", "application/typescript", "application/x-typescript"])
    // Components of web frameworks: markup, style and script in one file, compiled before they
    // run, as TypeScript is (review 28: libmagic's guess from the words, "JavaScript", refused
    // every `.vue`).
    list.type("org.vuejs.single-file-component", "Vue single-file component", ["public.source-code"], ext: ["vue"])
    list.type("dev.svelte.component", "Svelte component", ["public.source-code"], ext: ["svelte"])
    // Vim's own scripts and METAFONT sources run only inside their programs (reviews 33 and 35:
    // libmagic's guess from the words refused them as JavaScript, Python or Ruby).
    list.type("org.vim.script", "Vim script", ["public.source-code"], ext: ["vim"], mime: ["text/x-vim"])
    list.type("org.tug.metafont-source", "METAFONT source", ["public.source-code"], ext: ["mf"])
    // Never run, only read, their only meaning by name (review 37: refused as the scripts
    // shared-mime-info makes of them): Python's type stubs, Perl's documentation, and `.es`,
    // ECMAScript no system runs by that name and Spanish translations (`README.es`, `tutor.es`).
    list.type("org.python.type-stub", "Python type stub (pyi)", ["public.source-code"], ext: ["pyi"], soleMeaning: true)
    list.type("org.perl.pod", "Perl documentation (POD)", ["public.plain-text"], ext: ["pod"], soleMeaning: true)
    list.type(
      "org.ecma.ecmascript-source", "ECMAScript source or Spanish text (es)", ["public.source-code"], ext: ["es"], soleMeaning: true)
    // Named, not extended: shared-mime-info takes `*.mod` for a tracker song.
    list.type("org.golang.go-module", "Go module file", ["public.plain-text"], names: ["go.mod", "go.sum", "go.work", "go.work.sum"])
    // An icon, cursor or sound theme's `index.theme`: a key file GLib reads and never launches.
    // `*.theme` is first a Windows theme (excluded); this meaning needs content that shows it
    // (`TypePolicy.meaningsShownByContent`, `ContentClassifier.themeDescription`).
    list.type(
      "org.freedesktop.theme-description", "theme description (index.theme)", ["public.plain-text"],
      mime: ["application/x-theme"], sig: true)
    // A folder's icon and name for KDE's file manager (`.directory`), or a menu directory's
    // (`*.directory`): a desktop entry that launches nothing (review 35: every KDE folder's was
    // refused as a desktop entry). Only content that shows it is one (`isFolderSettings`).
    list.type(
      "org.freedesktop.folder-settings", "folder settings file (.directory)", ["public.plain-text"], ext: ["directory"],
      names: [".directory"])
  }

  /// Scripts: source code that runs when opened or made executable.
  static func scripts(_ list: inout BuiltinTypeList) {
    list.type("public.script", "script", ["public.source-code"])
    list.type(
      "public.shell-script", "shell script", ["public.script"],
      ext: ["sh", "bash", "zsh", "ksh", "csh", "tcsh", "dash", "fish", "command", "tool"],
      mime: ["application/x-shellscript", "text/x-shellscript", "application/x-sh", "text/x-sh"])
    list.type(
      "public.python-script", "Python script", ["public.script"], ext: ["py", "pyw", "py3", "pyz", "pyzw"],
      mime: [
        "text/x-python", "text/x-python3", "text/x-script.python", "application/x-python",
        "application/x-python3", "text/x-python-script",
      ])
    list.type(
      "public.perl-script", "Perl script", ["public.script"], ext: ["pl", "pm", "perl", "ph", "pl6", "pm6", "p6", "raku", "rakumod"],
      mime: ["application/x-perl", "text/x-perl", "text/x-script.perl"])
    list.type(
      "public.ruby-script", "Ruby script", ["public.script"], ext: ["rb", "rbw"],
      mime: ["application/x-ruby", "text/x-ruby", "text/x-script.ruby"])
    list.type(
      "public.php-script", "PHP script", ["public.script"], ext: ["php", "phtml", "phar"],
      mime: ["application/x-php", "text/x-php"])
    list.type(
      "com.netscape.javascript-source", "JavaScript source", ["public.script"], ext: ["js", "mjs", "cjs", "jsm", "jsx"],
      mime: [
        "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript",
        "text/ecmascript", "text/x-script.node",
      ])
    list.type(
      "com.microsoft.batch-file", "Windows batch file", ["public.script"], ext: ["bat", "cmd"],
      mime: ["application/x-bat", "text/x-msdos-batch", "application/x-msdos-batch"])
    list.type(
      "com.microsoft.powershell-script", "PowerShell script", ["public.script"],
      ext: [
        "ps1", "psm1", "psd1", "ps1xml", "ps2", "ps2xml", "psc1", "psc2", "msh", "msh1", "msh2", "mshxml", "msh1xml", "msh2xml",
        "cdxml", "pssc",
      ],
      mime: ["application/x-powershell", "text/x-powershell"])
    list.type(
      "com.microsoft.vbscript", "VBScript", ["public.script"], ext: ["vbs", "vbe", "wsf", "ws"],
      mime: ["text/vbscript", "application/x-vbscript"])
    list.type(
      "com.microsoft.registry-file", "Windows registry file", ["public.script"], ext: ["reg"],
      mime: ["text/x-ms-regedit", "application/x-ms-regedit"])
    list.type(
      "public.tcl-script", "Tcl script", ["public.script"], ext: ["tcl", "tk", "tm"], mime: ["text/tcl", "text/x-tcl", "application/x-tcl"])
    list.type(
      "com.microsoft.windows-script-component", "Windows script component", ["public.script"], ext: ["wsc", "sct", "jse", "wsh"],
      mime: ["text/scriptlet"])
    list.type("com.apple.applescript.text", "AppleScript", ["public.script"], ext: ["applescript"], mime: ["text/x-applescript"])
    // Windows automation scripts, run by a double-click where AutoIt or AutoHotkey is installed
    // (review 23: accepted as text).
    list.type("com.autoitscript.script", "AutoIt script", ["public.script"], ext: ["au3"])
    list.type("com.autohotkey.script", "AutoHotkey script", ["public.script"], ext: ["ahk", "ah2"])
  }

  /// Images.
  static func images(_ list: inout BuiltinTypeList) {
    list.type("public.image", "image", ["public.data", "public.content"])
    list.type(
      "public.jpeg", "JPEG image", ["public.image"], ext: ["jpg", "jpeg", "jpe", "jfif"], mime: ["image/jpeg", "image/pjpeg"], sig: true)
    list.type("public.png", "PNG image", ["public.image"], ext: ["png"], mime: ["image/png", "image/x-png"], sig: true)
    list.type("com.compuserve.gif", "GIF image", ["public.image"], ext: ["gif"], mime: ["image/gif"], sig: true)
    list.type("public.tiff", "TIFF image", ["public.image"], ext: ["tif", "tiff"], mime: ["image/tiff"], sig: true)
    list.type(
      "public.heif-standard", "HEIF image", ["public.image"], ext: ["heif", "hif"], mime: ["image/heif", "image/heif-sequence"], sig: true)
    list.type("public.heic", "HEIC image", ["public.heif-standard"], ext: ["heic"], mime: ["image/heic", "image/heic-sequence"], sig: true)
    list.type("org.webmproject.webp", "WebP image", ["public.image"], ext: ["webp"], mime: ["image/webp"], sig: true)
    list.type(
      "com.microsoft.bmp", "BMP image", ["public.image"], ext: ["bmp", "dib"], mime: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"],
      sig: true)
    list.type(
      "com.microsoft.ico", "Windows icon", ["public.image"], ext: ["ico"], mime: ["image/vnd.microsoft.icon", "image/x-icon"], sig: true)
    list.type("public.svg-image", "SVG image", ["public.image", "public.xml"], ext: ["svg"], mime: ["image/svg+xml"])
    list.type("public.xbitmap-image", "X bitmap image", ["public.image", "public.plain-text"], ext: ["xbm"], mime: ["image/x-xbitmap"])
    list.type(
      "public.xpixmap-image", "X pixmap image", ["public.image", "public.plain-text"], ext: ["xpm"],
      mime: ["image/x-xpixmap", "image/x-xpm"])
  }

  /// Audio and video.
  static func media(_ list: inout BuiltinTypeList) {
    list.type("public.audiovisual-content", "audiovisual content", ["public.data", "public.content"])
    list.type("public.movie", "movie", ["public.audiovisual-content"])
    list.type("public.audio", "audio", ["public.audiovisual-content"])
    list.type(
      "public.mpeg-4", "MPEG-4 movie", ["public.movie"], ext: ["mp4", "m4v"], mime: ["video/mp4", "application/mp4", "video/x-m4v"],
      sig: true)
    list.type(
      "public.mpeg-4-audio", "MPEG-4 audio", ["public.mpeg-4", "public.audio"], ext: ["m4a", "m4b"],
      mime: ["audio/mp4", "audio/x-m4a", "audio/m4a"])
    list.type("com.apple.quicktime-movie", "QuickTime movie", ["public.movie"], ext: ["mov", "qt"], mime: ["video/quicktime"], sig: true)
    list.type(
      "public.avi", "AVI movie", ["public.movie"], ext: ["avi"], mime: ["video/x-msvideo", "video/avi", "video/msvideo"], sig: true)
    list.type("org.webmproject.webm", "WebM movie", ["public.movie"], ext: ["webm"], mime: ["video/webm"], sig: true)
    list.type("org.matroska.mkv", "Matroska movie", ["public.movie"], ext: ["mkv"], mime: ["video/x-matroska"], sig: true)
    list.type(
      "public.mp3", "MP3 audio", ["public.audio"], ext: ["mp3"], mime: ["audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/x-mpeg"], sig: true
    )
    list.type(
      "com.microsoft.waveform-audio", "WAVE audio", ["public.audio"], ext: ["wav", "wave"],
      mime: ["audio/wav", "audio/x-wav", "audio/vnd.wave", "audio/wave"], sig: true)
    list.type("org.xiph.flac", "FLAC audio", ["public.audio"], ext: ["flac"], mime: ["audio/flac", "audio/x-flac"], sig: true)
    list.type(
      "com.microsoft.advanced-systems-format", "Windows Media (ASF) movie", ["public.movie"], ext: ["asf", "wmv"],
      mime: ["application/vnd.ms-asf", "video/x-ms-wmv", "video/x-ms-asf"], sig: true)
    list.type("com.microsoft.windows-media-wma", "Windows Media audio", ["public.audio"], ext: ["wma"], mime: ["audio/x-ms-wma"])
    list.type(
      "com.real.realmedia", "RealMedia movie", ["public.movie"], ext: ["rm", "rmvb"],
      mime: ["application/vnd.rn-realmedia", "application/vnd.rn-realmedia-vbr"], sig: true)
    list.type(
      "org.xiph.ogg-audio", "Ogg audio", ["public.audio"], ext: ["oga", "ogg", "opus", "spx"],
      mime: ["audio/ogg", "audio/x-vorbis+ogg", "audio/x-opus+ogg", "audio/x-flac+ogg", "audio/x-speex+ogg", "audio/vorbis", "audio/opus"],
      sig: true)
    list.type("org.xiph.ogg-video", "Ogg video", ["public.movie"], ext: ["ogv"], mime: ["video/ogg", "video/x-theora+ogg"], sig: true)
    // Data, not a movie: no player has run it since 2021. libmagic knows its FWS/CWS/ZWS headers,
    // so a `.spl` that lacks them (a vim spell file) is not one.
    list.type(
      "com.adobe.shockwave-flash", "Flash movie (SWF)", ["public.data"], ext: ["swf", "spl"],
      mime: ["application/vnd.adobe.flash.movie", "application/x-shockwave-flash", "application/futuresplash"], sig: true)
  }

  /// Fonts. libmagic says `font/sfnt` for TrueType and `application/vnd.ms-opentype` for OpenType;
  /// shared-mime-info says `font/ttf` and `font/otf` (and ties `*.otf` with an OpenDocument template).
  static func fonts(_ list: inout BuiltinTypeList) {
    list.type("public.font", "font", ["public.data", "public.content"])
    list.type(
      "public.truetype-ttf-font", "TrueType font", ["public.font"], ext: ["ttf"],
      mime: ["font/ttf", "font/sfnt", "application/x-font-ttf", "application/font-sfnt", "application/x-font-truetype"], sig: true)
    list.type(
      "public.opentype-font", "OpenType font", ["public.font"], ext: ["otf"],
      mime: ["font/otf", "application/vnd.ms-opentype", "application/x-font-otf", "application/x-font-opentype"], sig: true)
    list.type(
      "public.truetype-collection-font", "TrueType font collection", ["public.truetype-ttf-font"], ext: ["ttc", "otc"],
      mime: ["font/collection"])
    list.type(
      "org.w3.woff", "WOFF web font", ["public.font"], ext: ["woff"],
      mime: ["font/woff", "application/font-woff", "application/x-font-woff"], sig: true)
    list.type("org.w3.woff2", "WOFF2 web font", ["public.font"], ext: ["woff2"], mime: ["font/woff2", "application/font-woff2"], sig: true)
    list.type(
      "com.microsoft.embedded-opentype", "Embedded OpenType font", ["public.font"], ext: ["eot"], mime: ["application/vnd.ms-fontobject"],
      sig: true)
    list.type(
      "com.adobe.postscript-font", "PostScript Type 1 font", ["public.font"], ext: ["pfb", "pfa", "t1"],
      mime: ["application/x-font-type1", "font/type1"])
    list.type(
      "org.kernel.console-font", "Linux console font", ["public.font"], ext: ["psf", "psfu"], mime: ["application/x-font-linux-psf"])
  }

  /// Archives.
  static func archives(_ list: inout BuiltinTypeList) {
    list.type("public.archive", "archive", ["public.data"])
    list.type(
      "public.zip-archive", "ZIP archive", ["public.archive"], ext: ["zip"],
      mime: ["application/zip", "application/x-zip-compressed", "application/x-zip"], sig: true)
    list.type(
      "org.gnu.gnu-zip-archive", "gzip archive", ["public.archive"], ext: ["gz", "gzip"], mime: ["application/gzip", "application/x-gzip"],
      sig: true)
    list.type(
      "org.gnu.gnu-zip-tar-archive", "gzip-compressed tar archive", ["org.gnu.gnu-zip-archive"], ext: ["tgz", "tar.gz"],
      mime: ["application/x-compressed-tar", "application/x-gtar-compressed"])
    list.type(
      "public.tar-archive", "tar archive", ["public.archive"], ext: ["tar"],
      mime: ["application/x-tar", "application/x-gtar", "application/x-ustar"], sig: true)
    list.type(
      "public.bzip2-archive", "bzip2 archive", ["public.archive"], ext: ["bz2", "bzip2", "bz"],
      mime: ["application/x-bzip2", "application/x-bzip"], sig: true)
    list.type("org.tukaani.xz-archive", "xz archive", ["public.archive"], ext: ["xz"], mime: ["application/x-xz"], sig: true)
    list.type("org.7-zip.7-zip-archive", "7-Zip archive", ["public.archive"], ext: ["7z"], mime: ["application/x-7z-compressed"], sig: true)
    list.type(
      "com.rarlab.rar-archive", "RAR archive", ["public.archive"], ext: ["rar"],
      mime: ["application/vnd.rar", "application/x-rar", "application/x-rar-compressed"], sig: true)
    list.type("public.cpio-archive", "cpio archive", ["public.archive"], ext: ["cpio"], mime: ["application/x-cpio"], sig: true)
    list.type(
      "com.facebook.zstandard-archive", "Zstandard archive", ["public.archive"], ext: ["zst", "zstd"],
      mime: ["application/zstd", "application/x-zstd"], sig: true)
    list.type(
      "com.facebook.zstandard-tar-archive", "Zstandard-compressed tar archive", ["com.facebook.zstandard-archive"],
      ext: ["tar.zst", "tzst"], mime: ["application/x-zstd-compressed-tar"])
    list.type("org.lzip.lzip-archive", "lzip archive", ["public.archive"], ext: ["lz"], mime: ["application/x-lzip"], sig: true)
    list.type(
      "com.microsoft.cab-archive", "Microsoft cabinet archive", ["public.archive"], ext: ["cab"],
      mime: ["application/vnd.ms-cab-compressed", "application/x-cab"], sig: true)
    list.type(
      "com.installshield.cab-archive", "InstallShield cabinet archive", ["public.archive"], mime: ["application/x-installshield"], sig: true
    )
    list.type(
      "org.idpf.epub-container", "EPUB e-book", ["public.zip-archive", "public.composite-content"], ext: ["epub"],
      mime: ["application/epub+zip"], sig: true)
    // Fixed-layout documents in the Office Open XML container (review 28: "Office documents").
    list.type(
      "com.microsoft.xps", "XPS document", ["public.zip-archive", "public.composite-content"], ext: ["xps"],
      mime: ["application/vnd.ms-xpsdocument"])
    list.type(
      "org.ecma.openxps", "OpenXPS document", ["public.zip-archive", "public.composite-content"], ext: ["oxps"], mime: ["application/oxps"])
    list.type(
      "com.amazon.mobi-ebook", "Mobipocket e-book", ["public.data", "public.composite-content"], ext: ["mobi", "azw", "azw3"],
      mime: ["application/x-mobipocket-ebook", "application/vnd.amazon.mobi8-ebook"])
    list.type(
      "org.djvu.djvu-document", "DjVu document", ["public.image", "public.composite-content"], ext: ["djvu", "djv"],
      mime: ["image/vnd.djvu", "image/vnd.djvu+multipage", "image/x-djvu"], sig: true)
    list.type(
      "public.comic-book-archive", "comic book archive", ["public.zip-archive", "public.composite-content"], ext: ["cbz"],
      mime: ["application/vnd.comicbook+zip", "application/x-cbz"])
  }

  /// Disk images. An ISO 9660 image is also a raw disk image (as in shared-mime-info).
  static func diskImages(_ list: inout BuiltinTypeList) {
    list.type("public.disk-image", "disk image", ["public.data"])
    list.type(
      "public.raw-disk-image", "raw disk image", ["public.disk-image"], ext: ["img", "raw"],
      mime: ["application/x-raw-disk-image", "application/x-raw-floppy-disk-image"])
    list.type(
      "public.iso-image", "ISO disk image", ["public.raw-disk-image"], ext: ["iso"],
      mime: ["application/x-cd-image", "application/x-iso9660-image"], sig: true)
    list.type(
      "public.squashfs-image", "squashfs image", ["public.disk-image"], ext: ["squashfs", "sqfs", "sqsh"],
      mime: ["application/vnd.squashfs", "application/x-squashfs"])
    list.type("com.apple.disk-image-udif", "Apple disk image", ["public.disk-image"], ext: ["dmg"], mime: ["application/x-apple-diskimage"])
    list.type(
      "public.virtual-disk-image", "virtual machine disk image", ["public.disk-image"],
      ext: ["qcow2", "qcow", "vmdk", "vdi", "vhd", "vhdx"],
      mime: [
        "application/x-qemu-disk", "application/x-vmdk-disk", "application/x-virtualbox-vdi", "application/x-vhd-disk",
        "application/x-vhdx-disk",
      ])
  }

  /// Certificates and keys: public data, never executed.
  static func security(_ list: inout BuiltinTypeList) {
    list.type(
      "public.x509-certificate", "X.509 certificate", ["public.data", "public.content"], ext: ["crt", "cer", "der", "pem"],
      mime: ["application/x-x509-ca-cert", "application/pkix-cert", "application/x-x509-user-cert", "application/x-pem-file"])
    list.type(
      "com.rsa.pkcs-12", "PKCS #12 key bundle", ["public.data", "public.content"], ext: ["p12", "pfx"],
      mime: ["application/pkcs12", "application/x-pkcs12"])
    list.type(
      "public.certificate-request", "certificate signing request", ["public.data", "public.content"], ext: ["csr", "pem"],
      mime: ["application/pkcs10"])
    list.type(
      "public.private-key", "key (PEM)", ["public.data", "public.content"], ext: ["key", "pem"],
      mime: ["application/x-pem-key", "application/pkcs8"])
    list.type(
      "org.sqlite.sqlite3", "SQLite database", ["public.data"], ext: ["sqlite", "sqlite3"],
      mime: ["application/vnd.sqlite3", "application/x-sqlite3"], sig: true)
    // Recognised by content (a key type, a blank, base64 starting AAAA): a `.pub` of any other
    // text is not one, nor is a Publisher document (an OLE2 file shared-mime-info names `*.pub`).
    list.type(
      "org.openssh.public-key", "OpenSSH public key", ["public.plain-text"], ext: ["pub"], sig: true)
    list.type("org.openpgp.key", "OpenPGP key", ["public.data", "public.content"], mime: ["application/pgp-keys"], sig: true)
    list.type(
      "org.openpgp.signature", "OpenPGP signature", ["public.data", "public.content"], ext: ["sig"], mime: ["application/pgp-signature"])
    list.type("org.openpgp.encrypted", "OpenPGP encrypted data", ["public.data", "public.content"], mime: ["application/pgp-encrypted"])
  }
}
