import Testing

@testable import ShareCLI
@testable import ShareKit

/// A progress line fits the terminal, keeps its width while the numbers change, and says what
/// is happening: connecting, waiting for an answer, which file goes, how much of the whole file
/// is there when resuming, and no ETA before the rate means anything.
@Suite struct ProgressLineTests {
  static let start = ContinuousClock.now
  static let widths = [20, 40, 50, 80, 120, 200]

  static func sending(sent: Int64, total: Int64? = 1 << 30, held: Int64 = 0, item: String = "huge.bin") -> ProgressLine {
    var line = ProgressLine(label: "lab-b")
    line.peerName = "lab-b"
    line.phase = .sending
    line.item = item
    line.sent = sent
    line.total = total
    line.held = held
    line.streamingSince = start
    return line
  }

  @Test(arguments: widths)
  func aLineIsNeverWiderThanTheTerminalAndKeepsItsWidthWhileTheNumbersChange(width: Int) {
    let later = Self.start + .seconds(3)
    var lengths: Set<Int> = []
    for sent: Int64 in [0, 1, 999, 1 << 20, 300 << 20, 1 << 30] {
      let text = Self.sending(sent: sent).render(width: width, at: later)
      #expect(text.count < max(20, width), "\(width): \(text)")
      lengths.insert(text.count)
    }
    #expect(lengths.count == 1, "width \(width): lengths \(lengths)")
  }

  @Test func aWideTerminalShowsTheFilePercentageAmountsRateAndETA() {
    let text = Self.sending(sent: 512 << 20).render(width: 120, at: Self.start + .seconds(4))
    #expect(text.hasPrefix("lab-b huge.bin "), "\(text)")
    #expect(text.contains(" 50% "), "\(text)")
    #expect(text.contains("512 MiB/1.0 GiB"), "\(text)")
    #expect(text.contains("128 MiB/s"), "\(text)")
    #expect(text.contains("ETA 0:04"), "\(text)")
  }

  @Test func aNarrowTerminalKeepsTheBarAndThePercentage() {
    let text = Self.sending(sent: 512 << 20).render(width: 50, at: Self.start + .seconds(4))
    #expect(text.count <= 49, "\(text)")
    #expect(text.contains("[#####") && text.contains(" 50%"), "\(text)")
  }

  @Test func noRateOrETABeforeStreamingHasLastedASecond() {
    let early = Self.sending(sent: 100).render(width: 120, at: Self.start + .milliseconds(20))
    #expect(!early.contains("ETA") && !early.contains("/s"), "\(early)")
    let settled = Self.sending(sent: 100 << 20).render(width: 120, at: Self.start + .seconds(2))
    #expect(settled.contains("ETA") && settled.contains("50.0 MiB/s"), "\(settled)")
  }

  @Test func aResumedFileShowsTheProgressOfTheWholeFile() {
    // 57 % of a GiB already at the receiver, nothing sent yet.
    let held: Int64 = 584 << 20
    let text = Self.sending(sent: 0, total: (1 << 30) - held, held: held).render(width: 120, at: Self.start)
    #expect(text.contains(" 57% "), "\(text)")
    #expect(text.contains("/1.0 GiB"), "\(text)")
  }

  @Test func aStreamOfUnknownSizeShowsBytesAndRateNotAPercentage() {
    let text = Self.sending(sent: 293 << 20, total: nil, item: "stdin").render(width: 80, at: Self.start + .seconds(2))
    #expect(!text.contains("%") && !text.contains("0 bytes"), "\(text)")
    #expect(text.contains("293 MiB") && text.contains("147 MiB/s"), "\(text)")
  }

  @Test func connectingAndWaitingForAnAnswerSaySoInsteadOfZeroBytes() {
    var line = ProgressLine(label: "192.168.1.20:40123")
    #expect(line.render(width: 80, at: Self.start).contains("connecting…"))
    line.peerName = "lab-b"
    line.phase = .waiting
    let waiting = line.render(width: 80, at: Self.start)
    #expect(waiting.contains("waiting for lab-b to accept"), "\(waiting)")
    #expect(!waiting.contains("bytes") && !waiting.contains("%"), "\(waiting)")
    // Answered, before the first progress gives the amount (review 30 L10: "0 bytes/0 bytes").
    line.phase = .sending
    let answered = line.render(width: 80, at: Self.start)
    #expect(answered.contains("starting…") && !answered.contains("bytes") && !answered.contains("%"), "\(answered)")
    line.total = 4096
    line.sent = 1024
    #expect(line.render(width: 80, at: Self.start).contains("25%"))
  }

  @Test func aSendThatEndedWithNothingSentIsNoFullBar() {
    var line = ProgressLine(label: "lab-b")
    line.phase = .done
    line.total = 0
    let ended = line.render(width: 80, at: Self.start)
    #expect(ended.contains("no bytes sent") && !ended.contains("100%") && !ended.contains("#"), "\(ended)")
  }

  @Test func aLongFileNameIsCutFromTheFrontKeepingItsExtension() {
    let name = String(repeating: "very-long-name-", count: 10) + ".iso"
    let text = Self.sending(sent: 1, item: name).render(width: 80, at: Self.start)
    #expect(text.contains("…") && text.contains("name-.iso ["), "\(text)")
  }
}

/// The end of a send: the exit code from every receiver's outcome, the summary line, and what
/// Ctrl-C says.
@Suite struct SendSummaryTests {
  @Test func exitCodesAgreeNothingStoredIsFourWhateverTheReason() {
    #expect(ExitCode.of(send: [.allStored], interrupted: false) == .success)
    #expect(ExitCode.of(send: [.noneStored], interrupted: false) == .refused)
    #expect(ExitCode.of(send: [.noneStored, .noneStored], interrupted: false) == .refused)
    #expect(ExitCode.of(send: [.someStored], interrupted: false) == .partial)
    #expect(ExitCode.of(send: [.allStored, .noneStored], interrupted: false) == .partial)
    #expect(ExitCode.of(send: [.allStored, .failed], interrupted: false) == .failure)
    #expect(ExitCode.of(send: [.allStored], interrupted: true) == .interrupted)
    // A receiver that refuses the sender outright (mode off, contacts only), declines or is too busy: nothing stored.
    for code in ["refused", "declined", "busy"] {
      #expect(ReceiverOutcome(.failure(.peerFailure(code: code, message: PeerText("no")))) == .noneStored, "\(code)")
    }
    #expect(ReceiverOutcome(.failure(.peerFailure(code: "protocol", message: PeerText("bad")))) == .failed)
    #expect(ReceiverOutcome(.failure(.transport("refused", detail: ""))) == .failed)
  }

  @Test func theSummaryLineHasItemsBytesTimeAndRate() {
    #expect(
      SendSummary.stored(2, of: 2, peer: "bob", sent: 1 << 30, seconds: 4) == "2 of 2 stored in bob's Inbox: 1.0 GiB in 4.0 s (256 MiB/s)")
    #expect(SendSummary.stored(0, of: 1, peer: "bob", sent: 0, seconds: nil) == "0 of 1 stored in bob's Inbox")
    #expect(SendSummary.stored(1, of: 1, peer: "bob", sent: 6, seconds: 0.2) == "1 of 1 stored in bob's Inbox: 6 bytes in 200 ms")
    #expect(SendSummary.duration(125) == "2 min 5 s")
    #expect(SendSummary.duration(0.0123) == "12 ms")
    #expect(SendSummary.duration(3.44) == "3.4 s")
  }

  @Test func ctrlCSaysWhatTheReceiverKeepsAndHowToResume() {
    let big = SendingPayload(name: "huge.bin", size: 1 << 30, resumeFrom: 0, resumable: true)
    let text = SendSummary.interrupted(peer: "bob", payload: big, sentOfIt: 875 << 20, commandLine: ["send", "my huge.bin", "--to", "bob"])
    #expect(text.contains("bob keeps the 875 MiB of huge.bin"), "\(text)")
    #expect(text.hasSuffix("\n  share send 'my huge.bin' --to bob"), "\(text)")
    let small = SendingPayload(name: "a.txt", size: 10, resumeFrom: 0, resumable: false)
    #expect(
      SendSummary.interrupted(peer: "bob", payload: small, sentOfIt: 5, commandLine: [])
        == "cancelled; nothing partial is kept in bob's Inbox")
    #expect(
      SendSummary.interrupted(peer: "bob", payload: nil, sentOfIt: 0, commandLine: [])
        == "cancelled; nothing partial is kept in bob's Inbox")
  }
}

extension ProgressLineTests {
  @Test func theTitleTakesTheWidthItIsGivenSoBarsLineUp() {
    let line = Self.sending(sent: 1 << 29)
    let short = line.render(width: 120, at: Self.start, titleWidth: 14)
    #expect(short.hasPrefix("lab-b huge.bin ["), "\(short)")
    let wide = line.render(width: 120, at: Self.start, titleWidth: 30)
    #expect(wide.hasPrefix("lab-b huge.bin" + String(repeating: " ", count: 16) + " ["), "\(wide)")
    #expect(short.count == wide.count, "the bar takes what the title leaves")
  }
}

extension ProgressLineTests {
  @Test func theRateCountsOnlyBytesSentSinceStreamingStarted() {
    var line = Self.sending(sent: 100 << 20)
    line.sentAtStart = 50 << 20
    let text = line.render(width: 120, at: Self.start + .seconds(2))
    #expect(text.contains("25.0 MiB/s"), "\(text)")
  }

  /// Found by an outside review: a receiver that died mid-send left the sender saying only that
  /// the connection closed, without naming it or how to resume.
  @Test func aDroppedConnectionNamesTheReceiverAndHowToResume() {
    let closed = "The connection was closed before the transfer finished."
    let big = SendingPayload(name: "huge.bin", size: 1 << 30, resumeFrom: 0, resumable: true)
    let text = SendSummary.failed(
      closed, peer: "bob", named: true, payload: big, sentOfIt: 300 << 20, commandLine: ["send", "huge.bin", "--to", "bob"])
    #expect(text.hasPrefix("bob: \(closed) bob keeps up to 300 MiB of huge.bin"), "\(text)")
    #expect(text.hasSuffix("\n  share send huge.bin --to bob"), "\(text)")
    let small = SendingPayload(name: "a.txt", size: 10, resumeFrom: 0, resumable: false)
    #expect(SendSummary.failed(closed, peer: "bob", named: true, payload: small, sentOfIt: 5, commandLine: []) == "bob: \(closed)")
    #expect(SendSummary.failed(closed, peer: "bob", named: false, payload: nil, sentOfIt: 0, commandLine: []) == closed)
    #expect(SendSummary.failed(closed, peer: nil, named: true, payload: big, sentOfIt: 1, commandLine: []) == closed)
    // Sent whole (the connection dropped while the Receipt was awaited): no resume to offer.
    #expect(SendSummary.failed(closed, peer: "bob", named: true, payload: big, sentOfIt: 1 << 30, commandLine: []) == "bob: \(closed)")
  }
}
