import Foundation
import System
import TLS
import TextEscaping
import Wire

/// Streaming one payload (an item, or one entry of a folder) to the receiver.
extension Sender {
  /// Opens the bytes of an item (or of one folder entry) and hands them to `body`.
  /// A source that cannot be opened is a `.failed` source: its payload is abandoned.
  func withSource(
    _ item: OutgoingItem, entry: Int?, _ body: (ByteSource) throws -> String?
  ) throws -> String? {
    switch item.source {
    case .inline(let bytes):
      return try body(.memory(bytes))
    case .stream(let fd, let head):
      // A stream, however little was read of it so far: its reads wait for cancellation too.
      return try body(.prefixed(head, fd))
    case .spooled(let fd):
      return try body(.positioned(fd))
    case .file(let url):
      return try withFile(url, offered: item.stamps[nil], body)
    case .folder(_, let entries):
      guard let entry, let url = entries[safe: entry] ?? nil else { return try body(.failed("no such entry")) }
      return try withFile(url, offered: item.stamps[entry], body)
    }
  }

  /// Opens a file for its payload: one that is no longer what was offered (`offered`) is not
  /// read.
  private func withFile(_ url: URL, offered: FileStamp?, _ body: (ByteSource) throws -> String?) throws -> String? {
    let file: FileDescriptor
    let opened: FileStamp
    do {
      file = try FileDescriptor.open(url.path, .readOnly, options: .noFollow)
      opened = FileStamp(try file.status())
    } catch {
      return try body(.failed("cannot read it: \(error)"))
    }
    defer { try? file.close() }
    if let offered, let change = offered.change(to: opened) { return try body(.failed("it changed since it was offered: \(change)")) }
    file.adviseSequentialRead()
    return try body(.file(file.rawValue, opened))
  }

  /// How an abandoned payload's reason starts when the receiver refused it (a `Skip`), not
  /// this side.
  static let refusedWhileSending = "refused by the receiver while sending: "

  /// A `Skip` the receiver sent while this side was streaming (it refused the item on its first
  /// bytes): its reason, or nil when nothing has arrived. Anything else from the receiver now
  /// is a protocol error (or its `Failure`).
  func receivedSkip(_ connection: FramedConnection, item: Int, entry: Int?) throws -> String? {
    guard connection.tls.hasIncomingData() else { return nil }
    try connection.flush()
    switch try connection.receiveMessage(expecting: "Skip") {
    case .skip(let skip):
      // A late Skip for a payload already sent whole: nothing to stop.
      guard skip.item == item, skip.entry == entry else { return nil }
      return Self.refusedWhileSending + skip.reason.description
    case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
    case let other: throw WireError.unexpected(expected: "Skip", got: "a \(other.typeName) message")
    }
  }

  /// Streams one payload: begin, data frames, end with its digest. With a declared size,
  /// exactly that many bytes are sent; without one, everything up to end of input. Returns why
  /// the payload was abandoned (its end frame then carries no digest), or nil when sent whole.
  func stream(
    item: Int, entry: Int?, from resumeAt: Int64, declared: Int64?, source: ByteSource,
    over connection: FramedConnection, buffer: UnsafeMutableRawBufferPointer, progress: (Int64) -> Void
  ) throws -> String? {
    let hasher = SHA256Hasher()
    var done: Int64 = 0
    var offset = 0
    // Resuming: the receiver holds the first `resumeAt` bytes; prove ours are the same by their
    // digest, then carry on from there (the digest at the end still covers the whole item).
    if resumeAt > 0, case .file = source {
      let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffer[FrameHeader.size...])
      done = hashPrefix(of: source, upTo: resumeAt, into: hasher, using: payloadArea, offset: &offset)
    }
    if resumeAt > 0 {
      try connection.sendBegin(BeginFrame(item: item, entry: entry, offset: resumeAt, prefixDigest: Digest(bytes: hasher.finalizeCopy())))
      if done < resumeAt {
        try connection.sendEnd(nil)
        return "it shrank since the interrupted attempt"
      }
    } else {
      try connection.sendBegin(BeginFrame(item: item, entry: entry))
    }
    if case .failed(let reason) = source {
      try connection.sendEnd(nil)
      return reason
    }
    if let declared, declared - done >= Sender.pipelineBytes {
      return try streamPipelined(
        item: item, entry: entry, declared: declared, done: done, offset: offset, source: source, hasher: hasher, over: connection,
        progress: progress)
    }
    return try streamDirect(
      item: item, entry: entry, declared: declared, done: done, offset: offset, source: source, hasher: hasher,
      over: connection, buffer: buffer, progress: progress)
  }

  /// Reads and hashes the first `count` bytes of `source`; returns how many there were.
  private func hashPrefix(
    of source: ByteSource, upTo count: Int64, into hasher: SHA256Hasher, using area: UnsafeMutableRawBufferPointer, offset: inout Int
  ) -> Int64 {
    var done: Int64 = 0
    while done < count {
      let piece = UnsafeMutableRawBufferPointer(rebasing: area[0..<Int(min(Int64(area.count), count - done))])
      guard let n = try? source.read(into: piece, at: &offset, cancelled: { isCancelled }), n > 0 else { break }
      hasher.update(UnsafeRawBufferPointer(rebasing: area[0..<n]))
      done += Int64(n)
    }
    return done
  }

  /// `stream`'s loop on this thread alone: read a frame's worth, hash, send; for a small item,
  /// or a stream of unknown length.
  private func streamDirect(
    item: Int, entry: Int?, declared: Int64?, done start: Int64, offset startOffset: Int, source: ByteSource, hasher: SHA256Hasher,
    over connection: FramedConnection, buffer: UnsafeMutableRawBufferPointer, progress: (Int64) -> Void
  ) throws -> String? {
    var done = start
    var offset = startOffset
    let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffer[FrameHeader.size...])
    while declared.map({ done < $0 }) ?? true {
      let want = Int(min(Int64(payloadArea.count), (declared ?? Int64.max) - done))
      var got = 0
      while got < want {
        let n: Int
        do {
          n = try source.read(
            into: UnsafeMutableRawBufferPointer(rebasing: payloadArea[got..<want]), at: &offset, cancelled: { isCancelled })
        } catch {
          try connection.sendEnd(nil)
          return "cannot read it: \(error)"
        }
        if n == 0 { break }
        got += n
      }
      if got == 0 && declared == nil { break }
      if got < want && declared != nil {
        try connection.sendEnd(nil)
        return "it shrank while being sent"
      }
      let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(FrameHeader.size + got)])
      hasher.update(UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...]))
      if let skipped = try receivedSkip(connection, item: item, entry: entry) {
        try connection.sendEnd(nil)
        return skipped
      }
      try connection.sendData(framedIn: frame)
      done += Int64(got)
      progress(Int64(got))
      if got < want { break }  // end of a stream of unknown length
    }
    if let changed = source.changedWhileRead() {
      try connection.sendEnd(nil)
      return changed
    }
    guard let digest = Digest(bytes: hasher.finalize()) else { fatalError("SHA-256 is 32 bytes") }
    try connection.sendEnd(digest)
    return nil
  }
}
