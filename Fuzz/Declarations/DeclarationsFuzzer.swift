import Foundation

@testable import UniformTypes

/// Fuzzes the declarations plist reader (`Declarations.parse`, XML or binary property lists, with
/// `PlistLocator` explaining failures) and the policies built on what it reads; the same bytes are
/// also read as an `AcceptSummary`, the shape a receiver's Hello carries to a sender.
///
/// Properties:
/// - a refusal is a `DeclarationsError` whose description carries no raw control character
///   (values from the file are escaped);
/// - accepted declarations hold only well-formed identifiers, extensions and MIME types, and no
///   type is declared twice;
/// - a `TypePolicy` is built from them or refused with a `DeclarationsError`; its verdicts give a
///   reason without raw control characters;
/// - a sender predicting from the policy's summary (sent as JSON) reaches the receiver's own
///   name-stage verdict on every probe name;
/// - a policy built from any summary never traps, and its reasons are escaped too.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzDeclarations(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = Data(bytes(data, size))
  if let summary = try? PropertyListDecoder().decode(AcceptSummary.self, from: input) {
    checkVerdicts(TypePolicy(registry: registry, summary: summary), probes: probes(summary.declaredTypes.flatMap(\.filenameExtensions)))
  }
  let declarations: Declarations
  do {
    declarations = try Declarations.parse(input, source: "fuzz.plist")
  } catch {
    require(!hasTerminalControls(error.description), "raw control character in \(error.description.debugDescription)")
    return 0
  }
  let declared = declarations.exportedTypes + declarations.importedTypes
  require(Set(declared.map(\.identifier)).count == declared.count, "a type is declared twice")
  for declaration in declared {
    require(declaration.identifier.isReverseDNS, "identifier \(declaration.identifier) accepted")
    require(
      declaration.filenameExtensions.allSatisfy(TypeRegistry.isValidExtension), "extension accepted: \(declaration.filenameExtensions)")
    require(declaration.mimeTypes.allSatisfy(MIMEType.isValid), "MIME type accepted: \(declaration.mimeTypes)")
  }
  for id in declarations.acceptedTypes + declarations.excludedTypes {
    require(id.isReverseDNS || id.dynamicMIMEType != nil, "identifier \(id) accepted")
  }
  let policy: TypePolicy
  do {
    policy = try TypePolicy(registry: registry, declarations: declarations)
  } catch {
    require(!hasTerminalControls(error.description), "raw control character in \(error.description.debugDescription)")
    return 0
  }
  let names = probes(declared.flatMap(\.filenameExtensions))
  checkVerdicts(policy, probes: names)
  // What the receiver says in its Hello, as a sender decodes it.
  guard let json = try? JSONEncoder().encode(policy.summary),
    let received = try? JSONDecoder().decode(AcceptSummary.self, from: json)
  else {
    require(false, "a policy's summary does not survive JSON")
    return 0
  }
  guard received == received.bounded() else { return 0 }  // cut to the network limits: a prediction only
  let predicted = TypePolicy(registry: registry, summary: received)
  for (name, kind) in names {
    let truth = policy.judge(name: name, kind: kind)
    let guess = predicted.judge(name: name, kind: kind)
    require(
      truth.accepted == guess.accepted && truth.rule == guess.rule,
      "\(kind) \(name.debugDescription): receiver says \(truth.rule), the sender predicts \(guess.rule)")
  }
  return 0
}

/// The built-in types only: the same on every machine, so a finding reproduces anywhere.
private let registry = TypeRegistry.builtinOnly

private func probes(_ extensions: [String]) -> [(String, ItemKind)] {
  var names: [(String, ItemKind)] = [
    ("photo.jpg", .file), ("run.sh", .file), ("setup.exe", .file), ("notes", .file), ("a.tar.gz", .file),
    ("trip", .folder), ("link.url", .url), ("note.txt", .text), ("x\u{1B}[2J.png", .file),
  ]
  names += extensions.prefix(8).map { ("file.\($0)", .file) }
  return names
}

private func checkVerdicts(_ policy: TypePolicy, probes: [(String, ItemKind)]) {
  for (name, kind) in probes {
    let verdict = policy.judge(name: name, kind: kind)
    require(!hasTerminalControls(verdict.reason), "raw control character in \(verdict.reason.debugDescription)")
    require(verdict.reason.hasPrefix(verdict.accepted ? "accepted" : "rejected"), "reason \(verdict.reason.debugDescription) disagrees")
  }
  _ = policy.summary
}
