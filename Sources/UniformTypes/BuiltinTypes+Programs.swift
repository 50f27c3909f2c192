/// The built-in types of 3D models, and of everything that acts when opened: macro-enabled
/// documents, programs, launchers and installers (split from BuiltinTypes.swift for length).
extension BuiltinTypes {
  /// 3D models and CAD drawings. libmagic calls the text forms of STL, OBJ, PLY, STEP and DXF
  /// plain text (`text: true`: the name says what that text is); glTF is JSON.
  static func models(_ list: inout BuiltinTypeList) {
    list.type("public.3d-content", "3D model", ["public.data", "public.content"])
    list.type(
      "public.standard-tesselated-geometry-format", "STL 3D model", ["public.3d-content"], ext: ["stl"],
      mime: ["model/stl", "application/sla", "model/x.stl-ascii", "model/x.stl-binary"], text: true)
    list.type(
      "public.geometry-definition-format", "OBJ 3D model", ["public.3d-content"], ext: ["obj"], mime: ["model/obj"], text: true)
    list.type("public.polygon-file-format", "PLY 3D model", ["public.3d-content"], ext: ["ply"], mime: ["model/ply"], text: true)
    list.type("org.khronos.gltf", "glTF 3D model", ["public.3d-content", "public.json"], ext: ["gltf"], mime: ["model/gltf+json"])
    list.type("org.khronos.glb", "glTF binary 3D model", ["public.3d-content"], ext: ["glb"], mime: ["model/gltf-binary"])
    list.type(
      "com.microsoft.3mf", "3MF 3D model", ["public.3d-content", "public.zip-archive"], ext: ["3mf"],
      mime: ["model/3mf", "application/vnd.ms-package.3dmanufacturing-3dmodel+xml"])
    list.type(
      "public.step-model", "STEP CAD model", ["public.3d-content"], ext: ["step", "stp"], mime: ["model/step", "application/step"],
      text: true)
    list.type(
      "com.autodesk.dwg", "DWG drawing", ["public.3d-content"], ext: ["dwg"], mime: ["image/vnd.dwg", "application/acad", "image/x-dwg"])
    list.type(
      "com.autodesk.dxf", "DXF drawing", ["public.3d-content"], ext: ["dxf"], mime: ["image/vnd.dxf", "application/dxf", "image/x-dxf"],
      text: true)
    list.type("org.blender.blend", "Blender scene", ["public.3d-content"], ext: ["blend"], mime: ["application/x-blender"])
  }

  /// Macro-enabled Office documents: they carry a VBA project (`vbaProject.bin`) that runs when
  /// opened, or are add-ins, macro sheets, queries or databases with code that Office runs or
  /// fetches when it opens them. By name for the legacy kinds (their content is an OLE2 file, a
  /// database or text like any other); the OOXML kinds by content too.
  static func macroDocuments(_ list: inout BuiltinTypeList) {
    list.type("com.microsoft.office.macro-enabled", "macro-enabled Office document", ["public.data"])
    list.type(
      "org.oasis-open.opendocument.macro-enabled", "OpenDocument file with macros (Basic or scripts)",
      ["org.oasis-open.opendocument", "com.microsoft.office.macro-enabled"])
    list.type(
      "org.openxmlformats.wordprocessingml.document.macroenabled", "macro-enabled Word document (docm)",
      ["org.openxmlformats.wordprocessingml.document", "com.microsoft.office.macro-enabled"], ext: ["docm", "dotm"],
      mime: ["application/vnd.ms-word.document.macroenabled.12", "application/vnd.ms-word.template.macroenabled.12"])
    list.type(
      "org.openxmlformats.spreadsheetml.sheet.macroenabled", "macro-enabled Excel workbook (xlsm)",
      ["org.openxmlformats.spreadsheetml.sheet", "com.microsoft.office.macro-enabled"], ext: ["xlsm", "xltm", "xlam"],
      mime: [
        "application/vnd.ms-excel.sheet.macroenabled.12", "application/vnd.ms-excel.template.macroenabled.12",
        "application/vnd.ms-excel.addin.macroenabled.12",
      ])
    // Excel's ordinary binary format: its MIME type and main part say "macroEnabled" with or
    // without VBA, so it is judged by content as xls is (review 18: a plain xlsb was refused).
    list.type(
      "com.microsoft.excel.sheet.binary", "Excel binary workbook (xlsb)", ["org.openxmlformats.spreadsheetml.sheet"],
      ext: ["xlsb"], mime: ["application/vnd.ms-excel.sheet.binary.macroenabled.12"])
    list.type(
      "org.openxmlformats.presentationml.presentation.macroenabled", "macro-enabled PowerPoint presentation (pptm)",
      ["org.openxmlformats.presentationml.presentation", "com.microsoft.office.macro-enabled"],
      ext: ["pptm", "potm", "ppsm", "ppam", "sldm"],
      mime: [
        "application/vnd.ms-powerpoint.presentation.macroenabled.12", "application/vnd.ms-powerpoint.template.macroenabled.12",
        "application/vnd.ms-powerpoint.slideshow.macroenabled.12", "application/vnd.ms-powerpoint.addin.macroenabled.12",
        "application/vnd.ms-powerpoint.slide.macroenabled.12",
      ])
    list.type(
      "com.microsoft.visio.drawing.macroenabled", "macro-enabled Visio drawing (vsdm)",
      ["com.microsoft.visio.drawing", "com.microsoft.office.macro-enabled"], ext: ["vsdm", "vssm", "vstm"],
      mime: [
        "application/vnd.ms-visio.drawing.macroenabled.main+xml", "application/vnd.ms-visio.stencil.macroenabled.main+xml",
        "application/vnd.ms-visio.template.macroenabled.main+xml",
      ])
    list.type(
      "com.microsoft.excel.xla", "Excel add-in or macro sheet (xla, xlm)",
      ["com.microsoft.excel.xls", "com.microsoft.office.macro-enabled"],
      ext: ["xla", "xlm"])
    list.type(
      "com.microsoft.powerpoint.ppa", "PowerPoint 97-2003 add-in (ppa)",
      ["com.microsoft.powerpoint.ppt", "com.microsoft.office.macro-enabled"],
      ext: ["ppa"])
    list.type(
      "com.microsoft.excel.sylk", "Symbolic Link spreadsheet (SYLK)", ["public.plain-text", "com.microsoft.office.macro-enabled"],
      ext: ["slk", "sylk"], mime: ["text/spreadsheet", "application/x-sylk"])
    list.type(
      "com.microsoft.excel.query", "Excel query file (iqy, dqy, rqy, oqy)", ["public.plain-text", "com.microsoft.office.macro-enabled"],
      ext: ["iqy", "dqy", "rqy", "oqy"], mime: ["text/x-ms-iqy"])
    accessFiles(&list)
  }

  /// Text that Windows applies when it is opened or installed: a setup information file's
  /// sections copy files and change the registry, an Internet settings file changes network
  /// and browser settings. Scripts in all but name.
  static func settingScripts(_ list: inout BuiltinTypeList) {
    list.type(
      "com.microsoft.setup-information", "Windows setup information (INF)", ["public.script"], ext: ["inf"],
      mime: ["application/x-setupscript"])
    list.type("com.microsoft.internet-settings", "Internet settings file (ins, isp)", ["public.script"], ext: ["ins", "isp"])
    // Opening one sets up an Outlook profile, whose settings can name a program to start
    // (review 35).
    list.type("com.microsoft.outlook-profile", "Outlook profile settings (prf)", ["public.script"], ext: ["prf"])
    // Terminal runs a settings file's CommandString when it is opened (review 20).
    list.type("com.apple.terminal.settings", "Terminal settings file (terminal)", ["public.xml", "public.script"], ext: ["terminal"])
  }

  /// Link files: a URL in a file that a click opens. TypePolicy+Links judges the URL they hold as
  /// a URL item's.
  static func links(_ list: inout BuiltinTypeList) {
    list.type(
      "com.microsoft.internet-shortcut", "Internet shortcut", ["public.plain-text", "public.url"], ext: ["url", "website"],
      mime: ["application/x-mswinurl"])
    // macOS location files: a web, file, AFP or FTP location, the same property list with a URL
    // (review 20: a .fileloc to file:///…/Calculator.app was accepted as XML).
    list.type(
      "com.apple.web-internet-location", "location file (webloc, fileloc)", ["public.xml", "public.url"],
      ext: ["webloc", "inetloc", "fileloc", "afploc", "ftploc"])
  }

  /// Programs for a virtual machine: Java classes, Android's Dalvik executables (review 21),
  /// Python bytecode, compiled AutoIt.
  static func bytecode(_ list: inout BuiltinTypeList) {
    list.type(
      "com.sun.java-class", "Java class file", ["public.data", "public.executable"], ext: ["class"],
      mime: ["application/x-java", "application/x-java-applet", "application/x-java-vm", "application/java-vm"], sig: true)
    list.type(
      "com.android.dex", "Dalvik executable (Android)", ["public.data", "public.executable"], ext: ["dex", "odex"],
      mime: ["application/vnd.android.dex"], sig: true)
    list.type(
      "org.python.bytecode", "Python bytecode", ["public.data", "public.executable"], ext: ["pyc", "pyo"],
      mime: ["application/x-python-bytecode", "application/x-bytecode.python"], sig: true)
    // What AutoIt3.exe runs (review 23: accepted as data); its source is a script (`.au3`).
    list.type("com.autoitscript.compiled", "compiled AutoIt script (a3x)", ["public.data", "public.executable"], ext: ["a3x"])
  }

  /// Executables and installers.
  static func executables(_ list: inout BuiltinTypeList) {
    list.type("public.executable", "executable", ["public.item"])
    list.type(
      "public.unix-executable", "Unix executable (ELF)", ["public.data", "public.executable"], ext: ["elf"],
      mime: [
        "application/x-executable", "application/x-pie-executable", "application/x-sharedlib",
        "application/x-elf", "application/x-object",
      ], sig: true)
    windowsExecutables(&list)
    // Review 16: libmagic names them (thin, universal and object files), but no type had the
    // name, so a macOS program was "data" under any name (`photo.jpg`).
    list.type(
      "com.apple.mach-o-binary", "Mach-O executable or library (macOS)", ["public.data", "public.executable"],
      ext: ["dylib", "bundle"], mime: ["application/x-mach-binary", "application/x-mach-o", "application/x-mach-o-executable"],
      sig: true)
    list.type(
      "com.sun.java-archive", "Java archive", ["public.zip-archive", "public.executable"], ext: ["jar", "war", "ear"],
      mime: ["application/java-archive", "application/x-java-archive"])
    bytecode(&list)
    list.type(
      "com.microsoft.windows-shortcut", "Windows shortcut", ["public.data", "public.executable"], ext: ["lnk", "pif", "scf", "url-ms"],
      mime: ["application/x-ms-shortcut"], sig: true)
    list.type(
      "com.microsoft.windows-xml-shortcut", "Windows shortcut (XML)", ["public.xml", "public.executable"],
      ext: ["settingcontent-ms", "library-ms", "search-ms", "searchconnector-ms"])
    list.type(
      "com.microsoft.management-console", "Management Console snap-in (msc)", ["public.xml", "public.executable"], ext: ["msc"])
    list.type(
      "com.sun.java-web-start", "Java Web Start launcher (JNLP)", ["public.xml", "public.executable"], ext: ["jnlp"],
      mime: ["application/x-java-jnlp-file"])
    list.type(
      "com.microsoft.html-application", "HTML application (HTA)", ["public.html", "public.executable"], ext: ["hta"],
      mime: ["application/hta"])
    list.type(
      "com.microsoft.windows-help", "Windows help file (hlp)", ["public.data", "public.executable"], ext: ["hlp"],
      mime: ["application/winhlp", "application/winhelp", "application/x-winhelp"])
    list.type("com.apple.applescript.script", "compiled AppleScript (scpt)", ["public.data", "public.executable"], ext: ["scpt"])
    list.type("com.microsoft.shell-scrap", "Windows shell scrap object", ["public.data", "public.executable"], ext: ["shs", "shb"])
    blockedAttachments(&list)
    list.type(
      "com.microsoft.remote-desktop-connection", "Remote Desktop connection (rdp)", ["public.plain-text", "public.executable"],
      ext: ["rdp"], mime: ["application/x-rdp"])
    // Review 37: a Citrix launch file connects as an .rdp does (and can map the local drives); a
    // Windows Sandbox file starts the sandbox with host folders mapped and runs its LogonCommand.
    list.type(
      "com.citrix.ica", "Citrix connection file (ica)", ["public.plain-text", "public.executable"], ext: ["ica"],
      mime: ["application/x-ica"])
    list.type("com.microsoft.windows-sandbox", "Windows Sandbox configuration (wsb)", ["public.xml", "public.executable"], ext: ["wsb"])
    // Applying a theme loads the visual style (.msstyles) it names, from any host: ThemeBleed,
    // CVE-2023-38146; a theme pack is a cabinet holding one (review 20).
    list.type(
      "com.microsoft.windows-theme", "Windows theme (theme, themepack)", ["public.data", "public.executable"],
      ext: ["theme", "themepack", "deskthemepack"])
    troubleshootingPacks(&list)
    list.type(
      "com.microsoft.compiled-html-help", "compiled HTML help (CHM)", ["public.data", "public.executable"], ext: ["chm"],
      mime: ["application/vnd.ms-htmlhelp", "application/x-chm"], sig: true)
  }

  /// Access's files: applications, databases, and the shortcuts and workgroup files beside
  /// them, all of which open Access on code.
  static func accessFiles(_ list: inout BuiltinTypeList) {
    list.type(
      "com.microsoft.access.application", "Access application (mde, accde, adp)",
      ["public.data", "com.microsoft.office.macro-enabled"], ext: ["mde", "accde", "ade", "adp", "mda", "accda"])
    // An AutoExec macro or a VBA module runs when Access opens a database, as in an application
    // (review 20: they were accepted as data). Refused like the applications, also by content.
    list.type(
      "com.microsoft.access.database", "Access database (mdb, accdb)", ["public.data", "com.microsoft.office.macro-enabled"],
      ext: ["mdb", "accdb"], mime: ["application/x-msaccess", "application/vnd.ms-access"])
    // Review 43: their neighbours on Windows' blocked-attachment list: an object shortcut (a
    // .mam opens Access on the database it names and runs the macro), workgroup and add-in
    // files. Not .mat: that is MATLAB's data file on every lab machine.
    list.type(
      "com.microsoft.access.shortcut", "Access object shortcut or workgroup file (mam, maf, mdw, …)",
      ["public.data", "com.microsoft.office.macro-enabled"],
      ext: ["mad", "maf", "mag", "mam", "maq", "mar", "mas", "mav", "maw", "mdt", "mdw", "mdz"])
  }

  /// Windows files on its blocked-attachment list that are not executables themselves but are
  /// opened by programs that run what they hold.
  static func blockedAttachments(_ list: inout BuiltinTypeList) {
    // Review 43: an HTML component's script behaviours, an Exchange shortcut, Office profile settings
    // applied on opening, a Visual Studio macro project, a printer migration file that installs
    // drivers. (Not .its: gettext's ITS rules share the extension.)
    list.type(
      "com.microsoft.html-component", "HTML component (htc)", ["public.plain-text", "public.executable"], ext: ["htc"],
      mime: ["text/x-component"])
    list.type(
      "com.microsoft.windows-blocked-attachment", "Windows file that runs what it holds (xnk, ops, vsmacros, printerexport)",
      ["public.data", "public.executable"], ext: ["xnk", "ops", "vsmacros", "printerexport"])
  }

  /// Windows troubleshooting packs, which run their scripts when opened, and their parts, which
  /// open in the same troubleshooter (msdt; review 35); and InfoPath form templates, cabinets
  /// whose form runs its script when filled in.
  static func troubleshootingPacks(_ list: inout BuiltinTypeList) {
    list.type(
      "com.microsoft.troubleshooting-pack", "Windows troubleshooting pack (diagcab)",
      ["com.microsoft.cab-archive", "public.executable"], ext: ["diagcab"])
    list.type(
      "com.microsoft.troubleshooting-pack-part", "Windows troubleshooting pack part (diagcfg, diagpkg)",
      ["public.xml", "public.executable"], ext: ["diagcfg", "diagpkg"])
    list.type(
      "com.microsoft.infopath-form-template", "InfoPath form template (xsn)", ["com.microsoft.cab-archive", "public.executable"],
      ext: ["xsn"], mime: ["application/vnd.ms-infopath"])
  }

  /// Windows executables (PE, NE, DOS), and NE modules with no code: Windows bitmap fonts are
  /// these (review 18), still Windows executables by content; only under a `.fon` name is one
  /// taken for the font (`TypePolicy.fontModule`).
  static func windowsExecutables(_ list: inout BuiltinTypeList) {
    list.type(
      "com.microsoft.windows-executable", "Windows executable", ["public.data", "public.executable"],
      ext: ["exe", "dll", "com", "scr", "cpl", "sys", "efi", "ocx", "xll", "wll", "drv", "mui"],
      mime: [
        "application/vnd.microsoft.portable-executable", "application/x-msdownload",
        "application/x-ms-dos-executable", "application/x-dosexec", "application/x-msdos-program",
        "application/x-ms-ne-executable",
      ], sig: true)
    list.type(
      "com.microsoft.ne-resource-module", "Windows resource-only module (NE, no code)", ["com.microsoft.windows-executable"])
    list.type(
      "com.microsoft.windows-font", "Windows bitmap font (fon)", ["public.font"], ext: ["fon"], mime: ["application/x-font-fon"])
  }

  /// Installers: whatever installs software.
  static func installers(_ list: inout BuiltinTypeList) {
    list.type("public.installer-package", "installer package", ["public.data"])
    list.type(
      "org.debian.deb-archive", "Debian package", ["public.archive", "public.installer-package"], ext: ["deb", "udeb"],
      mime: ["application/vnd.debian.binary-package", "application/x-deb", "application/x-debian-package"], sig: true)
    list.type(
      "com.redhat.rpm-archive", "RPM package", ["public.archive", "public.installer-package"], ext: ["rpm"],
      mime: ["application/x-rpm", "application/x-redhat-package-manager", "application/x-source-rpm"], sig: true)
    list.type(
      "org.appimage.appimage", "AppImage", ["public.unix-executable", "public.installer-package"], ext: ["appimage"],
      mime: ["application/vnd.appimage", "application/x-iso9660-appimage"])
    list.type(
      "com.android.package-archive", "Android package", ["com.sun.java-archive", "public.installer-package"],
      ext: ["apk", "aab", "xapk", "apks"], mime: ["application/vnd.android.package-archive"])
    list.type(
      "com.microsoft.windows-installer", "Windows installer package",
      ["com.microsoft.compound-document", "public.installer-package", "public.executable"], ext: ["msi", "msp", "mst"],
      mime: ["application/x-msi", "application/x-ms-installer", "application/x-ole-storage-msi"])
    list.type(
      "org.flatpak.flatpakref", "Flatpak reference", ["public.plain-text", "public.installer-package"], ext: ["flatpakref"],
      mime: ["application/vnd.flatpak.ref"])
    list.type(
      "org.flatpak.flatpakrepo", "Flatpak repository", ["public.plain-text", "public.installer-package"], ext: ["flatpakrepo"],
      mime: ["application/vnd.flatpak.repo"])
    list.type("org.flatpak.flatpak", "Flatpak bundle", ["public.installer-package"], ext: ["flatpak"], mime: ["application/vnd.flatpak"])
    list.type("io.snapcraft.snap", "Snap package", ["public.installer-package"], ext: ["snap"], mime: ["application/vnd.snap"])
    list.type(
      "public.run-installer", "self-extracting installer (.run)", ["public.shell-script", "public.installer-package"], ext: ["run"])
    list.type(
      "com.apple.installer-package-archive", "macOS installer package", ["public.installer-package"], ext: ["pkg", "mpkg"],
      mime: ["application/x-newton-compatible-pkg", "application/vnd.apple.installer+xml"])
    list.type(
      "com.microsoft.clickonce-application", "ClickOnce application", ["public.installer-package"],
      ext: ["application", "appref-ms", "vsto", "xbap"], mime: ["application/x-ms-application", "application/x-ms-xbap"])
    list.type("com.microsoft.windows-gadget", "Windows gadget", ["public.zip-archive", "public.installer-package"], ext: ["gadget"])
    // Standalone Windows Update packages and provisioning packages install what they hold (review 20).
    list.type(
      "com.microsoft.windows-update-package", "Windows update package (msu)", ["com.microsoft.cab-archive", "public.installer-package"],
      ext: ["msu"])
    list.type(
      "com.microsoft.provisioning-package", "Windows provisioning package (ppkg)", ["public.data", "public.installer-package"],
      ext: ["ppkg"])
    list.type(
      "org.opensuse.one-click-install", "openSUSE one-click install (ymp)", ["public.xml", "public.installer-package"], ext: ["ymp"],
      mime: ["text/x-suse-ymp"])
    list.type(
      "org.mozilla.xpinstall", "Firefox add-on (xpi)", ["public.zip-archive", "public.installer-package"], ext: ["xpi"],
      mime: ["application/x-xpinstall"])
    list.type(
      "org.kde.plasma-package", "KDE Plasma add-on", ["public.zip-archive", "public.installer-package"], ext: ["plasmoid", "kwinscript"],
      mime: ["application/x-plasma"])
    list.type(
      "org.archlinux.package", "Arch Linux package", ["com.facebook.zstandard-tar-archive", "public.installer-package"],
      ext: ["pkg.tar.zst"])
  }

  /// Packages that an app store, a package manager or an application installs: Windows app
  /// packages, mobile apps, editor and browser extensions, language packages, device profiles.
  static func packages(_ list: inout BuiltinTypeList) {
    // pacman still installs the forms before zstd (review 18); a tar whose entries in the head
    // include .PKGINFO is one by content (`ContentClassifier.packageInTar`).
    list.type(
      "org.archlinux.package-tar", "Arch Linux package (tar, xz, gzip...)", ["public.archive", "public.installer-package"],
      ext: ["pkg.tar", "pkg.tar.xz", "pkg.tar.gz", "pkg.tar.bz2", "pkg.tar.lz4", "pkg.tar.lzo", "pkg.tar.lrz", "pkg.tar.lz"])
    list.type("org.voidlinux.xbps", "Void Linux package (xbps)", ["public.archive", "public.installer-package"], ext: ["xbps"])
    list.type(
      "com.microsoft.msix-package", "Windows app package (MSIX, AppX)", ["public.zip-archive", "public.installer-package"],
      ext: ["msix", "appx", "msixbundle", "appxbundle"],
      mime: ["application/msix", "application/appx", "application/msixbundle", "application/appxbundle"])
    list.type(
      "com.microsoft.appinstaller", "MSIX App Installer file", ["public.xml", "public.installer-package"], ext: ["appinstaller"],
      mime: ["application/appinstaller"])
    list.type(
      "com.apple.itunes.ipa", "iOS app (ipa)", ["public.zip-archive", "public.installer-package"], ext: ["ipa"],
      mime: ["application/x-ios-app"])
    list.type(
      "com.microsoft.vsix", "Visual Studio or VS Code extension (vsix)", ["public.zip-archive", "public.installer-package"],
      ext: ["vsix"], mime: ["application/vsix"])
    list.type(
      "org.libreoffice.extension", "LibreOffice extension (oxt)", ["public.zip-archive", "public.installer-package"], ext: ["oxt"],
      mime: ["application/vnd.openofficeorg.extension"])
    list.type(
      "com.google.chrome-extension", "Chrome extension (crx)", ["public.data", "public.installer-package"], ext: ["crx"],
      mime: ["application/x-chrome-extension"])
    list.type(
      "org.python.package", "Python package (wheel, egg)", ["public.zip-archive", "public.installer-package"], ext: ["whl", "egg"])
    list.type("org.rubygems.gem", "Ruby gem", ["public.tar-archive", "public.installer-package"], ext: ["gem"])
    list.type("org.nuget.package", "NuGet package (nupkg)", ["public.zip-archive", "public.installer-package"], ext: ["nupkg"])
    list.type("org.openwrt.ipk", "OpenWrt or webOS package (ipk)", ["public.archive", "public.installer-package"], ext: ["ipk"])
    // Review 46: opening one installs it: VirtualBox's installer puts native code that runs as
    // root in place; Alfred imports a workflow whose scripts run on its keywords.
    list.type(
      "org.virtualbox.extension-pack", "VirtualBox extension pack", ["org.gnu.gnu-zip-tar-archive", "public.installer-package"],
      ext: ["vbox-extpack"])
    list.type(
      "com.runningwithcrayons.alfred.workflow", "Alfred workflow", ["public.zip-archive", "public.installer-package"],
      ext: ["alfredworkflow"])
    list.type(
      "com.apple.mobileconfig", "Apple configuration profile (mobileconfig)", ["public.data", "public.installer-package"],
      ext: ["mobileconfig"], mime: ["application/x-apple-aspen-config"])
  }
}
