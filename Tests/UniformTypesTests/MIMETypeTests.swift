import Testing

@testable import UniformTypes

@Suite struct MIMETypeTests {
  /// What is already plain comes back as it is; the rest lower-cased, without parameters or
  /// surrounding blanks.
  @Test(arguments: [
    ("application/octet-stream", "application/octet-stream"),
    ("Text/Plain; charset=utf-8", "text/plain"),
    ("text/plain;charset=us-ascii", "text/plain"),
    ("  image/PNG \t", "image/png"),
    ("\nimage/png\r", "image/png"),
    ("", ""),
    (";", ""),
    ("application/vnd.ms-excel", "application/vnd.ms-excel"),
    ("application/x-ÉTRANGE", "application/x-étrange"),
    ("a/b c", "a/b c"),
  ])
  func normalized(_ value: String, _ expected: String) {
    #expect(MIMEType.normalized(value) == expected)
  }
}
