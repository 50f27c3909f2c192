/// For a refusal, the one edit of the declarations that would have let the item in: what the
/// receiver's owner is told (`share types accept .iso`) in the daemon's log and `share requests`.
///
/// Only refusals by the declarations have one (`excluded-name`, `excluded-content`,
/// `not-accepted`); a disguise, unreadable content or invalid text has none, since no edit of
/// the declarations changes those verdicts. A remedy is checked, not guessed: with the edit
/// applied, every type the judgement looked at would be free of exclusions and the ones it
/// needs accepted would be. The narrower edit wins (accepting the type itself) over forgetting a
/// broader exclusion; when no single command would do, there is none.
extension TypePolicy {
  /// The remedy for a name-stage refusal of an item whose name says `type`.
  func remedy(forNameType type: TypeIdentifier) -> DeclarationEdit? {
    remedy(clearing: [type], accepting: [type])
  }

  /// The remedy for a content-stage refusal: after the edit, neither the name's nor the content's
  /// type may be excluded, their reconciled type must be accepted, and so must the name's type
  /// when it says something else (what the name stage refused stays refused).
  func remedy(forNameType nameType: TypeIdentifier, content: ContentType) -> DeclarationEdit? {
    let type: TypeIdentifier
    switch reconcile(name: nameType, content: content) {
    case .disguise: return nil
    case .agreed(let agreed, _): type = agreed
    case .contentDecides(let decided): type = decided
    }
    var clearing = [nameType, type]
    if !content.isEmpty { clearing.append(content.type) }
    var accepting = [type]
    if nameType != .data, nameType != type { accepting.append(nameType) }
    return remedy(clearing: clearing, accepting: accepting)
  }

  /// The narrowest single edit after which no type of `clearing` is excluded and every type of
  /// `accepting` is accepted; nil when there is none.
  func remedy(clearing: [TypeIdentifier], accepting: [TypeIdentifier]) -> DeclarationEdit? {
    let excludedNow = excluded
    let acceptedNow = accepted
    func works(excluded: [TypeIdentifier], accepted: [TypeIdentifier]) -> Bool {
      clearing.allSatisfy { type in !excluded.contains { registry.conforms(type, to: $0) } }
        && accepting.allSatisfy { type in accepted.contains { registry.conforms(type, to: $0) } }
    }
    // Accept the types themselves: those listed as excluded, and those nothing accepts.
    var toAccept: [TypeIdentifier] = []
    for type in accepting + clearing where !toAccept.contains(type) {
      let listed = excludedNow.contains(type)
      let uncovered = accepting.contains(type) && acceptance(of: type) == nil
      if listed || uncovered { toAccept.append(type) }
    }
    if !toAccept.isEmpty,
      works(excluded: excludedNow.filter { !toAccept.contains($0) }, accepted: acceptedNow + toAccept)
    {
      return DeclarationEdit(action: .accept, types: toAccept, arguments: toAccept.map(registry.argument(for:)))
    }
    // Forget one broader exclusion.
    for blocker in excludedNow where clearing.contains(where: { registry.conforms($0, to: blocker) }) {
      if works(excluded: excludedNow.filter { $0 != blocker }, accepted: acceptedNow.filter { $0 != blocker }) {
        return DeclarationEdit(action: .forget, types: [blocker], arguments: [registry.argument(for: blocker)])
      }
    }
    return nil
  }
}
