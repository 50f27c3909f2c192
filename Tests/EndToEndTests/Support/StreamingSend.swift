import Foundation

/// `share send -` from `home` to `daemon`, its standard input a FIFO this side writes to: the
/// stream stays open (and the send under way) until the writer is closed, so a test can look at
/// the transfer, or stop the sender, while no more bytes come.
struct StreamingSend {
  let sender: ChildProcess
  /// The FIFO's write end; `close()` ends the stream.
  let writer: Int32

  init(from home: ShareHome, to daemon: Daemon, first bytes: String) throws {
    let fifo = home.root.appendingPathComponent("stream-\(UUID().uuidString)").path
    guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("mkfifo \(fifo) failed") }
    sender = try ChildProcess(
      executable: URL(fileURLWithPath: "/bin/sh"),
      arguments: [
        "-c", "exec \"$0\" --home \"$1\" send - --name s.txt --to \"$2\" < \"$3\"", try ShareBinary.require().path,
        home.home.path, daemon.address, fifo,
      ],
      environment: home.environment())
    writer = open(fifo, O_WRONLY)
    _ = bytes.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress, $0.count - 1) }
  }

  /// What `share status` shows once the receiving daemon lists the stream (20 s at most).
  static func statusUnderWay(of receiver: ShareHome) throws -> String {
    var shown = ""
    let deadline = ContinuousClock.now + .seconds(20)
    while !shown.contains("so far") && ContinuousClock.now < deadline { shown = try receiver.share("status").stdoutText }
    return shown
  }

  func close() { _ = Glibc.close(writer) }
}
