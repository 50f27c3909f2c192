import Foundation
import Testing

@testable import ShareKit

/// What `--notify` shows of peer text.
@Suite struct ArrivalHooksTests {
  /// Found by an outside review: a peer's name reached notify-send raw, markup and escapes
  /// included (notification servers make `<a href>` a link).
  @Test func notificationsShowPeerTextEscapedWithoutMarkup() {
    let shown = ArrivalHooks.shown("dave <a href=\"https://evil.example\">Click</a> <b>URGENT</b> & co\u{1B}[31m\u{2028}x")
    #expect(!shown.contains("<") && !shown.contains(">") && !shown.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" })
    #expect(shown.hasPrefix("dave &lt;a href=") && shown.contains("&amp; co"), "\(shown)")
    #expect(ArrivalHooks.shown("photo.jpg") == "photo.jpg")
  }
}
