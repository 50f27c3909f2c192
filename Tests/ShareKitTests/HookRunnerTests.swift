import Testing

@testable import ShareKit

/// The unconfined hook runner takes from the daemon only what a hook needs.
@Suite struct HookRunnerTests {
  let inbox = "/home/u/Documents/Inbox"

  @Test func anItemInTheInboxWithShareVariablesIsRun() {
    #expect(HookRunner.refusal(of: ["SHARE_ITEM_PATH": "\(inbox)/a b.txt", "SHARE_ITEM_NAME": "a b.txt"], inbox: inbox) == nil)
  }

  @Test func otherVariablesAreRefusedSoTheDaemonCannotSteerTheHook() {
    let why = HookRunner.refusal(of: ["SHARE_ITEM_PATH": "\(inbox)/a.txt", "LD_PRELOAD": "/tmp/evil.so"], inbox: inbox)
    #expect(why == "the variable LD_PRELOAD is not SHARE_*")
  }

  @Test func aPathOutsideTheInboxIsRefused() {
    for path in ["/home/u/.bashrc", "\(inbox)/../x", "\(inbox)/", "\(inbox)/sub/x", "\(inbox)x/y", inbox, "\(inbox)/.."] {
      #expect(HookRunner.refusal(of: ["SHARE_ITEM_PATH": path], inbox: inbox) != nil, "\(path)")
    }
  }
}
