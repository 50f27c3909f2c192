/// `share types show ID`: one type, its conformance chain and tags, and what the policy says.
package struct TypeReport: Sendable, Codable, Equatable {
  package var identifier: TypeIdentifier
  package var description: String
  package var origin: TypeOrigin
  /// Direct parents.
  package var conformsTo: [TypeIdentifier]
  /// Every type it conforms to, nearest first.
  package var ancestors: [TypeIdentifier]
  package var filenameExtensions: [String]
  package var mimeTypes: [String]
  package var recognizedByContent: Bool
  /// The document type (`CFBundleTypeName`) that accepts it, if any.
  package var acceptedBy: String?
  /// The excluded identifier it conforms to, if any (exclusion wins over acceptance).
  package var excludedBy: TypeIdentifier?
}

/// `share types` (effective declarations): what is accepted, declared and excluded, and from where.
package struct DeclarationsReport: Sendable, Codable, Equatable {
  /// The declarations file's path, or `built-in default`.
  package var source: String
  package var documentTypes: [DocumentType]
  /// Accepted identifiers, canonical, without repeats.
  package var acceptedTypes: [TypeIdentifier]
  /// Excluded identifiers, canonical.
  package var excludedTypes: [TypeIdentifier]
  package var exportedTypes: [TypeReport]
  package var importedTypes: [TypeReport]
  package var warnings: [String]
  /// The shared-mime-info directory in use, if any.
  package var mimeDirectory: String?
}

/// `share types check PATH`: what the name says, what the content shows, and the verdicts.
package struct CheckReport: Sendable, Codable, Equatable {
  package var path: String
  package var kind: ItemKind
  /// Size in bytes (files only).
  package var size: Int64?
  /// What the name says, as the content settled it when the name has several meanings
  /// (`*.service`: a D-Bus service or a systemd unit).
  package var nameType: TypeIdentifier
  /// What the content shows (files only).
  package var content: ContentType?
  /// The Ask-time verdict.
  package var nameVerdict: Verdict
  /// The final verdict (content stage for files; the name verdict for folders).
  package var verdict: Verdict
}

extension TypePolicy {
  /// The report for `identifier` (canonicalised), or nil when the registry does not know it.
  package func report(for identifier: TypeIdentifier) -> TypeReport? {
    guard let canonical = registry.canonicalIdentifier(identifier),
      let declaration = registry.declaration(for: canonical)
    else { return nil }
    return TypeReport(
      identifier: canonical, description: declaration.description, origin: declaration.origin,
      conformsTo: declaration.conformsTo, ancestors: registry.ancestors(of: canonical),
      filenameExtensions: declaration.filenameExtensions, mimeTypes: declaration.mimeTypes,
      recognizedByContent: declaration.recognizedByContent, acceptedBy: acceptance(of: canonical)?.documentType,
      excludedBy: exclusion(of: canonical))
  }

  /// The effective declarations.
  package var declarationsReport: DeclarationsReport {
    DeclarationsReport(
      source: declarations.source, documentTypes: declarations.documentTypes, acceptedTypes: accepted,
      excludedTypes: excluded,
      exportedTypes: declarations.exportedTypes.compactMap { report(for: $0.identifier) },
      importedTypes: declarations.importedTypes.compactMap { report(for: $0.identifier) },
      warnings: warnings, mimeDirectory: registry.mimeDirectory)
  }

  /// Checks a file or folder on disk as a receiver would judge it when offered under its own
  /// name: reads the first `ContentSniffer.headLength` bytes, sniffs and judges them.
  /// - Throws: `FileReadError` when the path cannot be opened or read, or is neither a regular file nor a folder.
  package func check(path: String, sniffer: ContentSniffer) throws(FileReadError) -> CheckReport {
    let head = try HeadReader.read(path: path, limit: ContentSniffer.headLength)
    // Judged under the name it is called by, backslashes and all, as a receiver is offered it.
    let name = TypeRegistry.calledName(path) ?? path
    if head.isDirectory {
      let verdict = judge(name: name, kind: .folder)
      return CheckReport(
        path: path, kind: .folder, size: nil, nameType: verdict.nameType, content: nil, nameVerdict: verdict,
        verdict: verdict)
    }
    // A package longer than its head is judged, as a receiver judges it once it is complete,
    // with all of it there to read.
    guard head.size > Int64(head.bytes.count), head.bytes.withUnsafeBytes(ContentClassifier.needsWhole) else {
      return check(name: name, head: head.bytes, totalSize: head.size, sniffer: sniffer, path: path)
    }
    return ItemBytes.reading(path: path) { whole in
      check(name: name, head: head.bytes, totalSize: head.size, sniffer: sniffer, path: path, whole: whole)
    }
  }

  /// Checks a file's name and first bytes held in memory (and `whole`, all of it, when it is
  /// longer: see `judge(name:kind:head:totalSize:sniffer:whole:)`).
  package func check(
    name: String, head: [UInt8], totalSize: Int64? = nil, sniffer: ContentSniffer, path: String? = nil,
    whole: ItemBytes? = nil
  ) -> CheckReport {
    let nameVerdict = judge(name: name, kind: .file)
    let content: ContentType?
    let verdict: Verdict
    do {
      let magic = try sniffer.sniff(head)
      let truncated = ContentSniffer.goesOnPastHead(head.count, totalSize: totalSize)
      let classified = ContentClassifier.classify(head: head, truncated: truncated, magic: magic, registry: registry, whole: whole)
      content = whole?.failure == nil ? classified : nil
      verdict = head.withUnsafeBytes { bytes in
        // A failed read of the whole item: the unreadable verdict judging gives.
        content == nil
          ? judge(name: name, kind: .file, head: bytes, totalSize: totalSize, sniffer: sniffer, whole: whole)
          : judgeLink(judge(name: name, content: classified), name: name, head: bytes, truncated: truncated)
      }
    } catch {
      content = nil
      verdict = judge(name: name, kind: .file, head: head, totalSize: totalSize, sniffer: sniffer, whole: whole)
    }
    return CheckReport(
      path: path ?? name, kind: .file, size: totalSize ?? Int64(head.count), nameType: verdict.nameType,
      content: content, nameVerdict: nameVerdict, verdict: verdict)
  }
}
