/// What kind of activity item is offered.
package enum ItemKind: String, Codable, Sendable, CaseIterable {
  /// A regular file: typed by its name, then by its content.
  case file
  /// A folder: `public.folder`; its entries are judged one by one as files and folders.
  case folder
  /// A URL: `public.url`.
  case url
  /// A text snippet: `public.utf8-plain-text`.
  case text
}
