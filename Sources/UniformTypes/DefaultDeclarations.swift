import Foundation

/// The default declarations, identical to the repository's Inbox/Declarations.plist (a test
/// compares them byte for byte; the blank line before the closing delimiter keeps the
/// file's final newline), so a fresh home works even without the repository.
extension Declarations {
  /// The text of Inbox/Declarations.plist.
  public static let defaultPlist: String = #"""
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  share's default type declarations: what a fresh home's Inbox accepts.
  A home may replace this file with its own (same keys); see Inbox/TYPES.md.
  An item is accepted when what it is (by name AND content) conforms to a type listed in
  CFBundleDocumentTypes and to no type listed in ExcludedActivityTypes.
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
	</array>
	<key>ExcludedActivityTypes</key>
	<array>
		<string>public.executable</string>
		<string>public.script</string>
		<string>org.freedesktop.desktop-entry</string>
		<string>public.installer-package</string>
	</array>
</dict>
</plist>

"""#

  /// The default declarations, parsed from `defaultPlist`; `source` is `built-in default`.
  public static let builtinDefault: Declarations = {
    do {
      return try Declarations.parse(Data(defaultPlist.utf8), source: "built-in default")
    } catch {
      fatalError("the built-in default declarations do not parse: \(error)")  // programmer error, covered by tests
    }
  }()
}
