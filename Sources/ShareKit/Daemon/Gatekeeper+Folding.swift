import TLS
import Wire

extension Gatekeeper {
  /// What makes two asks one for the owner: the same sender offering exactly the same — every
  /// item's kind, name, size and type, and every entry of a folder (path, kind, size); not a
  /// resume key, which a sender may make anew per connection. Review 19: keyed by names and
  /// sizes alone, a folder named and sized as the waiting ask's 5-byte note was folded into it,
  /// and came in with the owner's accept. `items` stand in when nothing is `offered` (a pairing).
  static func foldKey(_ peer: Fingerprint, items: [AskedItem], offered: [ItemOffer]) -> String {
    let hasher = SHA256Hasher()
    func add(_ field: String) { hasher.update(Array("\(field.utf8.count):\(field)".utf8)) }
    for item in offered {
      add(item.kind.rawValue)
      add(item.name.unescaped)
      add(String(item.size ?? -1))
      add(item.type ?? "")
      for entry in item.entries ?? [] {
        add(entry.path.unescaped)
        add(entry.kind.rawValue)
        add(String(entry.size))
      }
      add("")
    }
    if offered.isEmpty {
      for item in items {
        add(item.kind)
        add(item.name.unescaped)
        add(String(item.size ?? -1))
      }
    }
    return peer.hex + "/" + (Fingerprint(bytes: hasher.finalize())?.hex ?? "")
  }
}
