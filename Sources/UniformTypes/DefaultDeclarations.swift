import Foundation

/// The default declarations, identical to the repository's Inbox/Declarations.plist (a test
/// compares them byte for byte; the blank line before the closing delimiter keeps the
/// file's final newline), so a fresh home works even without the repository.
extension Declarations {
  /// The text of Inbox/Declarations.plist.
  package static let defaultPlist: String = #"""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <!--
      share's default type declarations: what a fresh home's Inbox accepts.
      A home may replace this file with its own (same keys); see Inbox/TYPES.md, which says why
      each line is here.
      An item is accepted when what it is (by name AND content) conforms to a type listed in
      CFBundleDocumentTypes and to no type listed in ExcludedActivityTypes. The first entry that
      accepts an item names it in reasons; "Other files" (public.data) comes last: anything that is
      data and not excluded, including files nobody can name. Remove it for a stricter Inbox.
    -->
    <plist version="1.0">
    <dict>
    	<key>CFBundleDocumentTypes</key>
    	<array>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Images</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.image</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Audio</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.audio</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Video</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.movie</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>PDF documents</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>com.adobe.pdf</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Office documents</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>org.openxmlformats.openxml</string>
    				<string>org.oasis-open.opendocument</string>
    				<string>com.microsoft.word.doc</string>
    				<string>com.microsoft.excel.xls</string>
    				<string>com.microsoft.powerpoint.ppt</string>
    				<string>public.rtf</string>
    				<string>public.comma-separated-values-text</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>E-books</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>org.idpf.epub-container</string>
    				<string>com.amazon.mobi-ebook</string>
    				<string>org.djvu.djvu-document</string>
    				<string>public.comic-book-archive</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Other documents</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.composite-content</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Fonts</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.font</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Calendars and contacts</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.calendar-event</string>
    				<string>public.vcard</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Certificates and keys</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.x509-certificate</string>
    				<string>com.rsa.pkcs-12</string>
    				<string>public.certificate-request</string>
    				<string>public.private-key</string>
    				<string>org.openpgp.key</string>
    				<string>org.openpgp.signature</string>
    				<string>org.openssh.public-key</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>3D models and drawings</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.3d-content</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Disk images</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.disk-image</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Text</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.plain-text</string>
    				<string>public.text</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Archives</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.archive</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Links</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.url</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Folders</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.folder</string>
    			</array>
    		</dict>
    		<dict>
    			<key>CFBundleTypeName</key>
    			<string>Other files</string>
    			<key>LSItemContentTypes</key>
    			<array>
    				<string>public.data</string>
    			</array>
    		</dict>
    	</array>
    	<key>ExcludedActivityTypes</key>
    	<array>
    		<string>public.installer-package</string>
    		<string>public.executable</string>
    		<string>public.script</string>
    		<string>org.freedesktop.desktop-entry</string>
    		<string>com.microsoft.office.macro-enabled</string>
    	</array>
    </dict>
    </plist>

    """#

  /// The default declarations, parsed from `defaultPlist`; `source` is `built-in default`.
  package static let builtinDefault: Declarations = {
    do {
      return try Declarations.parse(Data(defaultPlist.utf8), source: "built-in default")
    } catch {
      fatalError("the built-in default declarations do not parse: \(error)")  // programmer error, covered by tests
    }
  }()
}
