import Synchronization
import UniformTypes
import Wire

extension DeclarationEdit {
  /// The command a person types for this edit: `share types accept .iso`.
  package var command: String { "share types \(action.rawValue) \(arguments.joined(separator: " "))" }
}

/// What the receiver's owner is told about refused items (never the sender): the command that
/// would accept one, and a type's description in place of its identifier.
extension TypeGate {
  /// The command that would accept an item refused by its name (`share types accept .iso`), or
  /// nil when its name is not what refused it (a size limit, a disguise found in its content).
  package func acceptCommand(name: String, kind: Wire.ItemKind) -> String? {
    policy.judge(name: name, kind: UniformTypes.ItemKind(kind)).remedy?.command
  }

  /// "PNG image" for `public.png`; nil for no type.
  package func describe(_ type: String?) -> String? {
    type.map { policy.registry.describe(TypeIdentifier(rawValue: $0)) }
  }
}

/// The type rules a daemon receives with now, replaced when it reloads; any thread may read them.
final class CurrentTypeGate: Sendable {
  private let gate: Mutex<TypeGate>

  init(_ gate: TypeGate) { self.gate = Mutex(gate) }

  var value: TypeGate { gate.withLock { $0 } }

  func replace(with newGate: TypeGate) { gate.withLock { $0 = newGate } }
}
