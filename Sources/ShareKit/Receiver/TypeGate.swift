import Foundation
import Synchronization
import System
import UniformTypes
import Wire

/// The receiver's type rules: its declarations over the system's type registry, and libmagic
/// for content. Gives the `Verdict` on a name (for `AskDecision`) and on the first bytes (for the
/// payload receiver), in the wire's item kinds.
///
/// Immutable; `ContentSniffer` guards each of its libmagic handles with a mutex, so any thread may judge.
package struct TypeGate: Sendable {
  package let policy: TypePolicy
  package let registry: TypeRegistry
  package let sniffer: ContentSniffer
  /// Where the declarations came from: a home's file, or the shipped default.
  package let source: String
  /// Whether judging a large head has malloc keep libmagic's buffers (`keepSniffingMemory`).
  var keepsSniffingMemory = false

  /// The home's `Declarations.plist` when it has one, else the shipped default. A malformed
  /// file is an error that names the key and what is wrong. With `receiverName`, refusals are
  /// its own sentences ("lab-b does not accept disk images (big.iso)").
  ///
  /// `keepsCutDatabase`: whether libmagic's cut database is read from (and written to) the
  /// home's file (`SharePaths.magicCutFile`). Only the daemon does: the file is where the
  /// confined daemon may write, so a command run outside the confinement never loads it.
  /// `keepsSniffingMemory`: whether the first head over 16 KiB has malloc keep what libmagic
  /// frees (`keepSniffingMemory`); for a long-lived receiver.
  package static func load(
    paths: SharePaths, receiverName: String? = nil, keepsCutDatabase: Bool = false, keepsSniffingMemory: Bool = false
  ) throws(ShareError) -> TypeGate {
    let registry = TypeRegistry.system()
    var policy = try HomeDeclarations.policy(HomeDeclarations.read(paths.declarations), registry: registry)
    policy.receiverName = receiverName
    do {
      // One libmagic handle per core, so that small files are judged on every core at once.
      let sniffer = try ContentSniffer(
        handles: min(8, ProcessInfo.processInfo.activeProcessorCount),
        cutFile: keepsCutDatabase ? paths.magicCutFile.path : nil)
      return TypeGate(
        policy: policy, registry: registry, sniffer: sniffer, source: policy.declarations.source,
        keepsSniffingMemory: keepsSniffingMemory)
    } catch {
      throw .configuration("cannot load libmagic for content sniffing: \(error)")
    }
  }

  /// How many leading bytes content judgement examines.
  package var sniffLength: Int { ContentSniffer.headLength }

  /// Judges an item from its name and kind (Ask time): rejected items cost no bytes.
  package func judge(name: String, kind: Wire.ItemKind) -> Verdict {
    policy.judge(name: name, kind: UniformTypes.ItemKind(kind))
  }

  /// Judges an item's first bytes (libmagic through the sniffer); with `whole`, all of the
  /// complete item is there to be read (see `TypePolicy.judge(name:kind:head:totalSize:sniffer:whole:)`).
  package func judgeContent(name: String, kind: Wire.ItemKind, head: [UInt8], size: Int64?, whole: ItemBytes? = nil) -> Verdict {
    if keepsSniffingMemory && head.count > Self.largeHead { Self.keepSniffingMemory() }
    return policy.judge(name: name, kind: UniformTypes.ItemKind(kind), head: head, totalSize: size, sniffer: sniffer, whole: whole)
  }

  /// A head from which libmagic's per-call buffers pass malloc's 128 KiB: each of its calls
  /// callocs (head + 1) × 8 bytes for its text encoding check (twice) and, for text, 6 bytes per
  /// character for the head as UTF-8, and frees them before it returns.
  static let largeHead = 16 << 10

  private static let sniffingMemoryKept = Atomic<Bool>(false)

  /// Once per process: has malloc keep 1.25 MiB free at the top of each arena (what libmagic
  /// frees after a call on a 64 KiB head of text, 0.9 MiB), instead of giving back all but
  /// 128 KiB, when the freed memory would be faulted in and zeroed again by the next call (a
  /// sixth of the receiver's CPU for a folder of real files: 130,000 page faults for 3,000).
  /// Not from the start: a session of small files (4 KiB heads) never needs it, and its peak was
  /// 0.4–2 MiB higher with it. Set while other threads allocate: glibc marks `mallopt` MT-Unsafe
  /// because `free` reads the bound without a lock; the bound is one aligned word, so a `free`
  /// running meanwhile trims by the old bound or the new one (it takes the main arena's lock to
  /// write it).
  private static func keepSniffingMemory() {
    guard !sniffingMemoryKept.load(ordering: .relaxed),
      sniffingMemoryKept.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    else { return }
    CurrentProcess.fixMallocTrimThreshold(1_280 << 10)
  }

  /// The summary for this receiver's Hello.
  package var summary: AcceptsSummary { AcceptsSummary(policy.summary) }
}

extension UniformTypes.ItemKind {
  init(_ kind: Wire.ItemKind) {
    switch kind {
    case .file: self = .file
    case .folder: self = .folder
    case .url: self = .url
    case .text: self = .text
    }
  }
}

extension AcceptsSummary {
  /// The wire form of the type layer's summary.
  init(_ summary: AcceptSummary) {
    self.init(
      documentTypes: summary.documentTypes.map { DocumentTypeSummary(name: $0.name, contentTypes: $0.contentTypes.map(\.rawValue)) },
      excludedTypes: summary.excludedTypes.map(\.rawValue),
      declaredTypes: summary.declaredTypes.map {
        DeclaredType(
          identifier: $0.identifier.rawValue, conformsTo: $0.conformsTo.map(\.rawValue), filenameExtensions: $0.filenameExtensions)
      })
  }
}

extension AcceptSummary {
  /// The type layer's form of a summary read from the network, cut to safe bounds.
  package init(_ summary: AcceptsSummary) {
    self.init(
      documentTypes: summary.documentTypes.map {
        DocumentType(name: $0.name, contentTypes: $0.contentTypes.map { TypeIdentifier(rawValue: $0) })
      },
      excludedTypes: summary.excludedTypes.map { TypeIdentifier(rawValue: $0) },
      declaredTypes: summary.declaredTypes.map {
        DeclaredType(
          identifier: TypeIdentifier(rawValue: $0.identifier), conformsTo: $0.conformsTo.map { TypeIdentifier(rawValue: $0) },
          filenameExtensions: $0.filenameExtensions)
      })
    self = bounded()
  }
}
