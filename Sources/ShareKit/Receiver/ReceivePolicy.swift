import UniformTypes
import Wire

/// What a receiver takes, as values: its limits and its type rules. `AskDecision` applies them
/// to an Ask; the payload receiver applies the type rules to content.
package struct ReceivePolicy: Sendable {
  /// The largest single item accepted.
  package var maxItemBytes: Int64
  /// The largest total of one Ask.
  package var maxAskBytes: Int64
  /// The largest URL or text item.
  package static let maxInlineBytes: Int64 = 1 << 20
  /// The type rules, when the home has them.
  package var types: TypeGate?

  package init(maxItemBytes: Int64 = 1 << 40, maxAskBytes: Int64 = 1 << 42, types: TypeGate? = nil) {
    self.maxItemBytes = maxItemBytes
    self.maxAskBytes = maxAskBytes
    self.types = types
  }

  /// The type rules' verdict on a name (Ask time); nil without type rules, which take anything.
  func judge(name: String, kind: Wire.ItemKind) -> Verdict? {
    types?.judge(name: name, kind: kind)
  }

  /// The type rules' verdict on an item's first bytes (all of them when the item is shorter than
  /// the sniff length); nil without type rules.
  func judgeContent(name: String, kind: Wire.ItemKind, head: [UInt8], size: Int64?, whole: ItemBytes? = nil) -> Verdict? {
    types?.judgeContent(name: name, kind: kind, head: head, size: size, whole: whole)
  }

  /// How many leading bytes `judgeContent` wants.
  package var sniffLength: Int { types?.sniffLength ?? 0 }

  /// What to tell senders this receiver accepts.
  package var summary: AcceptsSummary? { types?.summary }
}

/// Bytes for people: "1.5 GiB", "2 bytes", "1 byte".
package func formatBytes(_ bytes: Int64) -> String {
  let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"]
  var value = Double(bytes)
  var unit = 0
  while value >= 1024 && unit < units.count - 1 {
    value /= 1024
    unit += 1
  }
  if unit == 0 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
  return value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\((value * 10).rounded() / 10) \(units[unit])"
}
