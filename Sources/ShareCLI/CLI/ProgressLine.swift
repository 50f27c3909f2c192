import ShareKit

/// One receiver's progress, and how it reads as one line of a terminal that is `width` columns
/// wide: `bob huge.bin [#######-----]  57% 584 MiB/1.0 GiB  112 MiB/s ETA 0:04`.
///
/// Pure: `render` depends only on the values and the moment it is given, so it is tested without
/// a terminal. Every field has a fixed width, so the line does not change length as the numbers
/// change; fields are left out, least useful first, until the line fits (it is never wider than
/// `width - 1`, so a terminal never wraps it). Texts from the network are escaped by whoever
/// sets them.
struct ProgressLine: Sendable {
  enum Phase: Sendable, Equatable {
    case connecting
    /// The receiver's owner is being asked.
    case waiting
    case sending
    case done
  }

  /// The receiver as the command line named it.
  var label: String
  /// The receiver's own name, once connected (escaped).
  var peerName: String?
  var phase = Phase.connecting
  /// The item (or folder entry) whose bytes are going now (escaped).
  var item: String?
  /// Bytes sent by this send.
  var sent: Int64 = 0
  /// Bytes this send has to send; nil when an item's size is unknown (standard input).
  var total: Int64? = 0
  /// Bytes the receiver already held when the send began (resuming): counted as done, so a
  /// resumed file shows the progress of the whole file.
  var held: Int64 = 0
  /// When bytes started to go (and `sent` then): rates and ETAs are measured from here, not
  /// from connecting, waiting for an answer, or proving a resumed file's first bytes.
  var streamingSince: ContinuousClock.Instant?
  var sentAtStart: Int64 = 0

  /// The rate and the ETA are shown once streaming has lasted this long: the first moments'
  /// figures say more about buffers than about the network.
  static let settling: Duration = .seconds(1)
  static let minimumBar = 10

  /// The receiver and the item as one text, before it is cut to fit.
  var fullTitle: String {
    let receiver = peerName ?? label
    return item.map { receiver + " " + $0 } ?? receiver
  }

  /// The line for a terminal `width` columns wide; `paint` colours the bar's body. The title
  /// (receiver and item) takes `titleWidth` columns (the display passes the longest title so
  /// far, so bars line up and do not move), at most two fifths of the line.
  func render(width: Int, at now: ContinuousClock.Instant, titleWidth: Int? = nil, paint: (String) -> String = { $0 }) -> String {
    let budget = max(20, width) - 1
    switch phase {
    case .connecting:
      return fit(title(budget / 2) + " connecting…", budget)
    case .waiting:
      return fit(title(budget / 2) + " waiting for \(peerName ?? label) to accept…", budget)
    case .sending, .done:
      let most = min(40, max(12, budget * 2 / 5))
      let columns = min(most, max(12, titleWidth ?? most))
      guard let total else { return fit(title(columns) + streamFigures(now), budget) }
      // Answered, and no byte counted yet: the amount is not known until the first progress
      // (review 30 L10: the bar read "0 bytes/0 bytes").
      if phase == .sending, total == 0, sent == 0, held == 0 { return fit(title(columns) + " starting…", budget) }
      // Ended with nothing sent (declined, refused, unanswered): no full bar saying "done"
      // (review 36 L6: "100% 0 bytes/0 bytes done" in green for a declined ask).
      if phase == .done, total == 0, sent == 0, held == 0 { return fit(title(columns) + " no bytes sent", budget) }
      return barLine(total: total, titleWidth: columns, budget: budget, now: now, paint: paint)
    }
  }

  /// `title [###---] percent amounts rate ETA`, leaving out the amounts, then the rate, then the
  /// ETA, until the bar gets at least `minimumBar` columns.
  private func barLine(
    total: Int64, titleWidth columns: Int, budget: Int, now: ContinuousClock.Instant, paint: (String) -> String
  ) -> String {
    let whole = held + total
    let done = min(held + sent, whole)
    let fraction = whole > 0 ? Double(done) / Double(whole) : (phase == .done ? 1 : 0)
    let percent = pad(String(Int(fraction * 100)) + "%", 4, left: true)
    // In the order shown; the first of `dropOrder` still there goes first when space is short.
    var figures = [
      "amounts": pad(formatBytes(done), 9, left: true) + "/" + pad(formatBytes(whole), 9),
      "rate": rate(now), "eta": eta(remaining: whole - done, now: now),
    ]
    var titleWidth = columns
    // title, " [", the bar, "] ", the percentage, and each figure after a blank.
    func rest() -> Int { budget - titleWidth - 4 - percent.count - figures.values.reduce(0) { $0 + 1 + $1.count } }
    for key in ["amounts", "rate", "eta"] where rest() < Self.minimumBar { figures[key] = nil }
    while rest() < Self.minimumBar, titleWidth > 6 { titleWidth -= 1 }
    let barWidth = max(0, rest())
    let filled = Int(fraction * Double(barWidth))
    let body = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
    let right = ([percent] + ["amounts", "rate", "eta"].compactMap { figures[$0] }).joined(separator: " ")
    return title(titleWidth) + " [" + paint(body) + "] " + right
  }

  /// For a stream of unknown size: bytes so far and the rate, no percentage.
  private func streamFigures(_ now: ContinuousClock.Instant) -> String {
    " " + pad(formatBytes(held + sent), 9, left: true) + " sent " + rate(now) + (phase == .done ? " done" : "")
  }

  /// The receiver (by its own name once connected) and the item, cut and padded to exactly
  /// `width` columns.
  private func title(_ width: Int) -> String {
    let receiver = peerName ?? label
    guard fullTitle.count > width else { return pad(fullTitle, width) }
    guard let item else { return cut(receiver, width) }
    let name = cut(receiver, min(receiver.count, max(4, width / 2)))
    return pad(name + " " + cutFront(item, max(1, width - name.count - 1)), width)
  }

  private func rate(_ now: ContinuousClock.Instant) -> String {
    guard let seconds = settledSeconds(now) else { return pad("", 11) }
    return pad(formatBytes(Int64(Double(sent - sentAtStart) / seconds)) + "/s", 11, left: true)
  }

  private func eta(remaining: Int64, now: ContinuousClock.Instant) -> String {
    if phase == .done { return pad("done", 9) }
    guard let seconds = settledSeconds(now), sent > sentAtStart else { return pad("", 9) }
    let left = Int((Double(remaining) / (Double(sent - sentAtStart) / seconds)).rounded(.up))
    let clock =
      left >= 3600
      ? "\(left / 3600):" + twoDigits((left / 60) % 60) + ":" + twoDigits(left % 60)
      : "\(left / 60):" + twoDigits(left % 60)
    return pad("ETA " + clock, 9)
  }

  /// Seconds of streaming, once it has lasted `settling`; nil before.
  private func settledSeconds(_ now: ContinuousClock.Instant) -> Double? {
    guard let since = streamingSince, now - since >= Self.settling else { return nil }
    return (now - since) / .seconds(1)
  }
}

private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

/// `text` padded with blanks to `width` (on the left when `left`); never cut.
private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
  let blanks = String(repeating: " ", count: max(0, width - text.count))
  return left ? blanks + text : text + blanks
}

/// `text` cut to `width` columns, ending in `…` when cut.
private func cut(_ text: String, _ width: Int) -> String {
  guard text.count > width else { return text }
  return width <= 1 ? String(text.prefix(width)) : String(text.prefix(width - 1)) + "…"
}

/// `text` cut to `width` columns from the front (`…ng-name.iso`), keeping a name's extension.
private func cutFront(_ text: String, _ width: Int) -> String {
  guard text.count > width else { return text }
  return width <= 1 ? String(text.suffix(width)) : "…" + String(text.suffix(width - 1))
}

/// A line cut to `budget` columns.
private func fit(_ line: String, _ budget: Int) -> String { cut(line, budget) }
