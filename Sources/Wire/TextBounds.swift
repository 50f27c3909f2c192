import TextEscaping

/// How much text a peer may put into a message, checked as each message is decoded, so that a
/// 15 MiB device name or reason never travels further than the decoder.
///
/// Names and identifiers (a device name, a type, a failure code, the name an item was stored
/// under) are refused when over their cap: they are matched, stored and shown as what they are,
/// and a cut one would be a different name the peer never chose. Prose (reasons, failure and
/// wait messages) is cut at `messageBytes` (then `…`): it is only ever shown to a person, and
/// refusing it would turn an honest receiver's long explanation into a broken exchange.
package enum TextBounds {
  /// Longest device name in a Hello, in UTF-8 bytes. share's own are at most 63 (one DNS label).
  package static let deviceNameBytes = 256
  /// Longest type identifier, failure code, device ID or resume key, in UTF-8 bytes.
  package static let identifierBytes = 256
  /// Longest reason or message kept, in UTF-8 bytes; the rest is cut.
  package static let messageBytes = 1024
}

extension Message {
  /// This message with its prose cut to `TextBounds.messageBytes`; throws when a name or an
  /// identifier is over its cap (see `TextBounds`). Item names and folder paths in an Ask are
  /// `Ask.validate(limits:)`'s to check.
  func bounded() throws(WireError) -> Message {
    switch self {
    case .hello(let hello):
      try check(hello.name.unescaped, TextBounds.deviceNameBytes, "hello", "name")
      try check(hello.id, TextBounds.identifierBytes, "hello", "id")
      return self
    case .ask(let ask):
      for item in ask.items {
        try check(item.type, TextBounds.identifierBytes, "ask", "type")
        try check(item.resumeKey, TextBounds.identifierBytes, "ask", "resume_key")
      }
      return self
    case .answer(var answer):
      for index in answer.items.indices {
        try check(answer.items[index].type, TextBounds.identifierBytes, "answer", "type")
        answer.items[index].reason = cut(answer.items[index].reason)
        if var entries = answer.items[index].entries {
          for entry in entries.indices { entries[entry].reason = cut(entries[entry].reason) }
          answer.items[index].entries = entries
        }
      }
      return .answer(answer)
    case .receipt(var receipt):
      for index in receipt.items.indices {
        try check(receipt.items[index].type, TextBounds.identifierBytes, "receipt", "type")
        try check(receipt.items[index].storedAs?.unescaped, WireLimits().maxNameBytes, "receipt", "stored_as")
        receipt.items[index].reason = cut(receipt.items[index].reason)
        if var entries = receipt.items[index].refusedEntries {
          for entry in entries.indices {
            try check(entries[entry].path.unescaped, WireLimits().maxNameBytes, "receipt", "refused entry's path")
            entries[entry].reason = cut(entries[entry].reason)
          }
          receipt.items[index].refusedEntries = entries
        }
      }
      return .receipt(receipt)
    case .failure(let failure):
      try check(failure.code, TextBounds.identifierBytes, "failure", "code")
      return .failure(Failure(code: failure.code, message: cut(failure.message)))
    case .wait(var wait):
      wait.message = cut(wait.message)
      return .wait(wait)
    case .pairResult(var result):
      result.reason = cut(result.reason)
      return .pairResult(result)
    case .skip(var skip):
      skip.reason = cut(skip.reason)
      return .skip(skip)
    case .pair, .pairKey, .pairConfirm:
      return self
    }
  }
}

private func check(_ text: String?, _ limit: Int, _ message: String, _ field: String) throws(WireError) {
  guard let text, text.utf8.count > limit else { return }
  throw .malformedMessage("\(message): the \(field) is over \(limit) bytes")
}

private func cut(_ text: PeerText) -> PeerText {
  PeerText(Escaping.cut(text.unescaped, toBytes: TextBounds.messageBytes))
}

private func cut(_ text: PeerText?) -> PeerText? {
  text.map(cut)
}
