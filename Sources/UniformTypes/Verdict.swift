/// A decision about one item, with the rule that made it and a sentence a person understands.
///
/// Property names convert cleanly with `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`
/// (`name_type`, `content_type`, `decided_by`).
package struct Verdict: Sendable, Codable, Equatable {
  /// When the verdict was made.
  package enum Stage: String, Codable, Sendable {
    /// At Ask time, from the name and kind only. An acceptance of a file is provisional: its
    /// content is judged when the first bytes arrive.
    case name
    /// On the first bytes of content.
    case content
  }

  /// The rule that decided (Inbox/TYPES.md, "Rules").
  package enum Rule: String, Codable, Sendable {
    /// The content's type conforms to an excluded type.
    case excludedContent = "excluded-content"
    /// The name's type conforms to an excluded type.
    case excludedName = "excluded-name"
    /// Name and content do not agree.
    case typeMismatch = "type-mismatch"
    /// Name stage: the name gives no type (`public.data`); the content will decide.
    case pendingContent = "pending-content"
    /// The type conforms to an accepted type.
    case accepted = "accepted"
    /// The type conforms to no accepted type.
    case notAccepted = "not-accepted"
    /// The content could not be examined (libmagic failed, or no bytes were given).
    case contentUnreadable = "content-unreadable"
    /// A text or URL item whose bytes are not valid UTF-8 text (or not a URL).
    case invalidText = "invalid-text"
    /// A link file (`.url`, `.website`, `.webloc`) holding a URL a URL item could not hold, or
    /// none, or a UNC path or `file:` URL as its URL or icon.
    case invalidLink = "invalid-link"
    /// Part of a version-control folder (`.git` and its kind), whatever its type: judged by
    /// where it is, not what it is (ShareKit's `VersionControl`).
    case versionControl = "version-control"
  }

  /// How the name's and the content's types were reconciled into `type` (content stage).
  package enum Match: String, Codable, Sendable {
    /// Both say the same type.
    case same
    /// The content's type conforms to the name's (a `.txt` that is a shell script, a file
    /// without extension): the content's type is taken.
    case contentRefinesName = "content-refines-name"
    /// The name's type conforms to the content's, and no type in between is one the sniffer
    /// recognises (a `.csv` that sniffs as plain text, a `.tar.gz` that sniffs as gzip):
    /// the name's type is taken.
    case nameRefinesContent = "name-refines-content"
    /// Both are text of different kinds: the content's kind is taken when it is firm (a `#!`
    /// script, a signature such as RTF's), else the name's (libmagic's HTML, C or CSV are guesses).
    case textFamily = "text-family"
    /// Both are images, or both audio/video, in different formats (a `.jpg` that is a PNG):
    /// the content's type is taken.
    case mediaFamily = "media-family"
    /// The content is empty: the name's type is taken (`public.plain-text` when the name gives none).
    case emptyContent = "empty-content"
    /// A URL or text item: typed by its kind.
    case kind
  }

  /// Whether the item may land in the Inbox (at name stage: may be offered its bytes).
  package var accepted: Bool
  package var stage: Stage
  /// The type the item is taken to be; this is what Inbox metadata records.
  package var type: TypeIdentifier
  /// The type its name (or kind) says.
  package var nameType: TypeIdentifier
  /// The type its content shows (content stage only).
  package var contentType: TypeIdentifier?
  /// How name and content were reconciled (content stage, when they were).
  package var match: Match?
  package var rule: Rule
  /// The accepting document type's `CFBundleTypeName`, or the excluded identifier that decided.
  package var decidedBy: String?
  /// One sentence: `accepted: …`, or for a refusal `rejected: does not accept …` (with the
  /// policy's `receiverName`: `lab-b does not accept …`); no raw control characters, no line break.
  package var reason: String
  /// For a refusal by the declarations, the one edit that would have let the item in (for the
  /// receiver's owner, never the sender: `TypePolicy+Remedy`); nil otherwise.
  package var remedy: DeclarationEdit?

  package init(
    accepted: Bool, stage: Stage, type: TypeIdentifier, nameType: TypeIdentifier, contentType: TypeIdentifier? = nil,
    match: Match? = nil, rule: Rule, decidedBy: String? = nil, reason: String, remedy: DeclarationEdit? = nil
  ) {
    self.accepted = accepted
    self.stage = stage
    self.type = type
    self.nameType = nameType
    self.contentType = contentType
    self.match = match
    self.rule = rule
    self.decidedBy = decidedBy
    self.reason = reason
    self.remedy = remedy
  }
}
