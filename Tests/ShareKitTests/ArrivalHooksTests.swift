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

  /// Review 17: a stranger's name that starts with `--` became an option of notify-send.
  @Test func peerTextNeverReachesNotifySendAsAnOption() {
    let arguments = ArrivalHooks.notification("--urgency=low wants to send 1 item(s)", "Run 'share accept 1'")
    let end = arguments.firstIndex(of: "--")
    #expect(end != nil && arguments.firstIndex { $0.hasPrefix("--urgency") } ?? 0 > end ?? Int.max, "\(arguments)")
    #expect(arguments.suffix(2) == ["--urgency=low wants to send 1 item(s)", "Run 'share accept 1'"])
  }
}
