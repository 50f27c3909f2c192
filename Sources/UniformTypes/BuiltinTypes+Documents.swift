/// The built-in types of documents: PDF, PostScript, Office (Open XML, OpenDocument, 97-2003),
/// OneNote and iWork (split from BuiltinTypes.swift for length).
extension BuiltinTypes {
  /// Documents.
  static func documents(_ list: inout BuiltinTypeList) {
    list.type(
      "com.adobe.pdf", "PDF document", ["public.data", "public.composite-content"], ext: ["pdf"],
      mime: ["application/pdf", "application/x-pdf", "application/acrobat"], sig: true)
    list.type("public.spreadsheet", "spreadsheet", ["public.content"])
    list.type("public.presentation", "presentation", ["public.composite-content"])
    list.type("org.openxmlformats.openxml", "Office Open XML document", ["public.zip-archive", "public.composite-content"], sig: true)
    list.type(
      "org.openxmlformats.wordprocessingml.document", "Word document (docx)", ["org.openxmlformats.openxml"],
      ext: ["docx"], mime: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"])
    list.type(
      "org.openxmlformats.spreadsheetml.sheet", "Excel workbook (xlsx)", ["org.openxmlformats.openxml", "public.spreadsheet"],
      ext: ["xlsx"], mime: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"])
    list.type(
      "org.openxmlformats.presentationml.presentation", "PowerPoint presentation (pptx)",
      ["org.openxmlformats.openxml", "public.presentation"],
      ext: ["pptx"], mime: ["application/vnd.openxmlformats-officedocument.presentationml.presentation"])
    // shared-mime-info names these after their main part (`…main+xml`): without a declaration
    // they were XML, "Text", and a ZIP judged as text is not looked into (review 23).
    list.type(
      "com.microsoft.visio.drawing", "Visio drawing (vsdx)", ["org.openxmlformats.openxml"], ext: ["vsdx", "vssx", "vstx"],
      mime: [
        "application/vnd.ms-visio.drawing.main+xml", "application/vnd.ms-visio.stencil.main+xml",
        "application/vnd.ms-visio.template.main+xml",
      ])
    list.type(
      "com.adobe.postscript", "PostScript document", ["public.data", "public.composite-content"], ext: ["ps", "eps"],
      mime: ["application/postscript"], sig: true)
    list.type("org.oasis-open.opendocument", "OpenDocument file", ["public.zip-archive", "public.composite-content"], sig: true)
    list.type(
      "org.oasis-open.opendocument.text", "OpenDocument text (odt)", ["org.oasis-open.opendocument"],
      ext: ["odt"], mime: ["application/vnd.oasis.opendocument.text"])
    list.type(
      "org.oasis-open.opendocument.spreadsheet", "OpenDocument spreadsheet (ods)",
      ["org.oasis-open.opendocument", "public.spreadsheet"],
      ext: ["ods"], mime: ["application/vnd.oasis.opendocument.spreadsheet"])
    list.type(
      "org.oasis-open.opendocument.presentation", "OpenDocument presentation (odp)",
      ["org.oasis-open.opendocument", "public.presentation"],
      ext: ["odp"], mime: ["application/vnd.oasis.opendocument.presentation"])
    list.type(
      "com.microsoft.compound-document", "OLE2 compound document", ["public.data"],
      mime: ["application/x-ole-storage", "application/cdfv2", "application/x-cfb", "application/vnd.ms-office"], sig: true)
    list.type(
      "com.microsoft.word.doc", "Word 97-2003 document (doc)", ["com.microsoft.compound-document", "public.composite-content"],
      ext: ["doc", "dot"], mime: ["application/msword"])
    list.type(
      "com.microsoft.excel.xls", "Excel 97-2003 workbook (xls)", ["com.microsoft.compound-document", "public.spreadsheet"],
      ext: ["xls", "xlt"], mime: ["application/vnd.ms-excel"])
    list.type(
      "com.microsoft.powerpoint.ppt", "PowerPoint 97-2003 presentation (ppt)",
      ["com.microsoft.compound-document", "public.presentation"],
      ext: ["ppt", "pps", "pot"], mime: ["application/vnd.ms-powerpoint"])
    list.type(
      "com.microsoft.onenote", "OneNote section", ["public.data", "public.composite-content"], ext: ["one"],
      mime: ["application/onenote", "application/msonenote"])
  }

  /// OpenDocument's other kinds and the templates: without them a drawing was "an OpenDocument
  /// file, though its name says ODG drawing" (review 43), its name a ZIP archive's. Not the
  /// formula template's `.otf`, which is OpenType's.
  static func openDocumentKinds(_ list: inout BuiltinTypeList) {
    for (kind, description, ext) in [
      ("graphics", "OpenDocument drawing", "odg"), ("graphics-template", "OpenDocument drawing template", "otg"),
      ("formula", "OpenDocument formula", "odf"), ("chart", "OpenDocument chart", "odc"), ("image", "OpenDocument image", "odi"),
      ("text-master", "OpenDocument master document", "odm"), ("text-template", "OpenDocument text template", "ott"),
    ] {
      list.type(
        "org.oasis-open.opendocument.\(kind)", "\(description) (\(ext))", ["org.oasis-open.opendocument"], ext: [ext],
        mime: ["application/vnd.oasis.opendocument.\(kind)"])
    }
    list.type(
      "org.oasis-open.opendocument.spreadsheet-template", "OpenDocument spreadsheet template (ots)",
      ["org.oasis-open.opendocument.spreadsheet"], ext: ["ots"], mime: ["application/vnd.oasis.opendocument.spreadsheet-template"])
    list.type(
      "org.oasis-open.opendocument.presentation-template", "OpenDocument presentation template (otp)",
      ["org.oasis-open.opendocument.presentation"], ext: ["otp"], mime: ["application/vnd.oasis.opendocument.presentation-template"])
    // Painting programs' documents, ZIPs with a `mimetype` first as OpenDocument's (review 43: a
    // Krita document was "a ZIP archive, though its name says Krita document").
    list.type("org.kde.krita", "Krita document", ["public.zip-archive", "public.image"], ext: ["kra"], mime: ["application/x-krita"])
    list.type("org.openraster", "OpenRaster image", ["public.zip-archive", "public.image"], ext: ["ora"], mime: ["image/openraster"])
  }

  /// OpenOffice.org 1.x documents (`.sxw`, `.sxc`, …): OpenDocument's forerunner, a ZIP whose
  /// stored first entry `mimetype` names `application/vnd.sun.xml.*`. LibreOffice still opens
  /// them, and loads their `Basic/` libraries and event bindings as an odt's (review 33: without
  /// a declaration they were ZIP archives, looked into for no macros); a template is its kind's.
  static func openOfficeDocuments(_ list: inout BuiltinTypeList) {
    for (kind, description, parents, ext, templateExt) in [
      ("writer", "OpenOffice.org 1.x text", [], "sxw", "stw"),
      ("calc", "OpenOffice.org 1.x spreadsheet", ["public.spreadsheet"], "sxc", "stc"),
      ("impress", "OpenOffice.org 1.x presentation", ["public.presentation"], "sxi", "sti"),
      ("draw", "OpenOffice.org 1.x drawing", [], "sxd", "std"),
    ] as [(String, String, [String], String, String)] {
      let id = "org.openoffice.\(kind)"
      list.type(
        id, "\(description) (\(ext))", ["org.oasis-open.opendocument"] + parents, ext: [ext], mime: ["application/vnd.sun.xml.\(kind)"])
      list.type(
        "\(id).template", "\(description) template (\(templateExt))", [id], ext: [templateExt],
        mime: ["application/vnd.sun.xml.\(kind).template"])
    }
    list.type(
      "org.openoffice.writer.global", "OpenOffice.org 1.x master document (sxg)", ["org.openoffice.writer"], ext: ["sxg"],
      mime: ["application/vnd.sun.xml.writer.global"])
    list.type(
      "org.openoffice.writer.web", "OpenOffice.org 1.x HTML template", ["org.openoffice.writer"],
      mime: ["application/vnd.sun.xml.writer.web"])
    list.type(
      "org.openoffice.math", "OpenOffice.org 1.x formula (sxm)", ["org.oasis-open.opendocument"], ext: ["sxm"],
      mime: ["application/vnd.sun.xml.math"])
  }

  /// Documents stored compressed. Gnumeric writes gzip-compressed XML, and shared-mime-info does
  /// not say it is gzip: without its own declaration a `.gnumeric` was "a gzip archive".
  static func compressedDocuments(_ list: inout BuiltinTypeList) {
    list.type(
      "org.gnome.gnumeric", "Gnumeric spreadsheet", ["org.gnu.gnu-zip-archive", "public.spreadsheet", "public.composite-content"],
      ext: ["gnumeric"], mime: ["application/x-gnumeric"])
  }

  /// Apple's iWork documents: ZIP packages (when sent as files). After `security`, so that `.key`
  /// names a PEM key first, a Keynote presentation second; the content settles which.
  static func appleDocuments(_ list: inout BuiltinTypeList) {
    list.type(
      "com.apple.iwork.keynote.key", "Keynote presentation", ["public.zip-archive", "public.presentation"], ext: ["key"],
      mime: ["application/vnd.apple.keynote", "application/x-iwork-keynote-sffkey"])
    list.type(
      "com.apple.iwork.pages.pages", "Pages document", ["public.zip-archive", "public.composite-content"], ext: ["pages"],
      mime: ["application/vnd.apple.pages", "application/x-iwork-pages-sffpages"])
    list.type(
      "com.apple.iwork.numbers.numbers", "Numbers spreadsheet",
      ["public.zip-archive", "public.spreadsheet", "public.composite-content"], ext: ["numbers"],
      mime: ["application/vnd.apple.numbers", "application/x-iwork-numbers-sffnumbers"])
  }
}
