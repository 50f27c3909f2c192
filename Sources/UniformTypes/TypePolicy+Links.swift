/// Link files: a `.url`, `.website` or `.webloc` is judged by the URL it holds, as a URL item is;
/// a folder's `desktop.ini` by the paths it holds.
extension TypePolicy {
  /// How the link file a verdict is about is written: by its name's type, or by its content's
  /// when the name says nothing (a desktop opens a file without extension by its content, one
  /// named `.txt` as text); nil when it is no link file.
  func linkFormat(of verdict: Verdict, name: String) -> LinkFile.Format? {
    for type in verdict.nameType == .data ? [verdict.type] : [verdict.nameType] {
      if registry.conforms(type, to: .internetShortcut) { return .internetShortcut }
      if registry.conforms(type, to: .webLocation) { return .webLocation }
    }
    // Explorer reads a folder's `desktop.ini` (any case) when it shows the folder.
    if name.lowercased() == "desktop.ini" { return .folderSettings }
    return nil
  }

  /// `verdict`, or, for a link file judged on its first bytes, a refusal (rule `invalid-link`)
  /// if the URL it holds is one a URL item could not hold (`URLItemRule`), if it holds none, or if
  /// its URL or icon is a UNC path or a `file:` URL. This comes after the declarations: a link
  /// file they do not accept is refused as such link files are (an `invalid-link` refusal names
  /// the cause no edit of the declarations removes); one they exclude keeps that reason but loses
  /// its remedy, which would not let it in. Empty content is left to `verdict` (it opens nothing).
  func judgeLink(_ verdict: Verdict, name: String, head: UnsafeRawBufferPointer, truncated: Bool) -> Verdict {
    guard verdict.accepted || verdict.rule == .notAccepted || verdict.remedy != nil, verdict.stage == .content,
      !head.isEmpty, let format = linkFormat(of: verdict, name: name),
      let problem = LinkFile.problem(in: head, format: format, truncated: truncated)
    else { return verdict }
    if !verdict.accepted && verdict.rule != .notAccepted {
      var refused = verdict
      refused.remedy = nil
      return refused
    }
    var refused = verdict
    refused.accepted = false
    refused.rule = .invalidLink
    refused.decidedBy = nil
    refused.remedy = nil
    refused.reason = invalidLinkReason(name: name, problem)
    return refused
  }
}
