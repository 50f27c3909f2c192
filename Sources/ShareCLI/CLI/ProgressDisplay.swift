import Foundation
import ShareKit
import Synchronization

/// Progress bars on stderr, one line per recipient, redrawn at most ten times a second and
/// removed cleanly at the end. Only used when stderr is a terminal; colour only when allowed.
/// Thread-safe: senders report from their own threads.
final class ProgressDisplay: Sendable {
  private struct Bar {
    var label: String
    var sent: Int64 = 0
    var total: Int64 = 0
    var started = ContinuousClock.now
    var done = false
  }

  private struct State {
    var bars: [Bar] = []
    var drawnLines = 0
    var lastDraw = ContinuousClock.now - .seconds(1)
  }

  private let state = Mutex(State())
  private let terminal: Terminal
  private let width: Int

  init(terminal: Terminal, labels: [String]) {
    self.terminal = terminal
    width = max(40, min(120, Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80))
    state.withLock { $0.bars = labels.map { Bar(label: $0) } }
  }

  /// Records progress for bar `index` and redraws if enough time has passed.
  func update(_ index: Int, sent: Int64, total: Int64) {
    state.withLock { state in
      guard state.bars.indices.contains(index) else { return }
      state.bars[index].sent = sent
      state.bars[index].total = total
      let now = ContinuousClock.now
      if now - state.lastDraw >= .milliseconds(100) || sent == total {
        state.lastDraw = now
        draw(&state)
      }
    }
  }

  /// Marks bar `index` finished.
  func finish(_ index: Int) {
    state.withLock { state in
      guard state.bars.indices.contains(index) else { return }
      state.bars[index].done = true
      draw(&state)
    }
  }

  /// Removes the bars from the screen.
  func clear() {
    state.withLock { state in
      var text = ""
      for _ in 0..<state.drawnLines { text += "\u{1b}[1A\u{1b}[2K" }
      state.drawnLines = 0
      terminal.errRaw(text)
    }
  }

  /// Writes a line above the bars, keeping them intact.
  func print(_ line: String) {
    state.withLock { state in
      var text = ""
      for _ in 0..<state.drawnLines { text += "\u{1b}[1A\u{1b}[2K" }
      state.drawnLines = 0
      terminal.errRaw(text + line + "\n")
      draw(&state)
    }
  }

  private func draw(_ state: inout State) {
    var text = ""
    for _ in 0..<state.drawnLines { text += "\u{1b}[1A\u{1b}[2K" }
    for bar in state.bars { text += render(bar) + "\n" }
    state.drawnLines = state.bars.count
    terminal.errRaw(text)
  }

  private func render(_ bar: Bar) -> String {
    let elapsed = max(0.001, (ContinuousClock.now - bar.started) / .seconds(1))
    let rate = Double(bar.sent) / elapsed
    let fraction = bar.total > 0 ? min(1, Double(bar.sent) / Double(bar.total)) : (bar.done ? 1 : 0)
    let label = String(bar.label.prefix(18)).padding(toLength: 18, withPad: " ", startingAt: 0)
    let figures = " \(String(format: "%3d", Int(fraction * 100)))% \(formatBytes(bar.sent))/\(formatBytes(bar.total)) \(formatBytes(Int64(rate)))/s"
    let eta: String
    if bar.done {
      eta = " done"
    } else if rate > 0, bar.total > bar.sent {
      let seconds = Int(Double(bar.total - bar.sent) / rate)
      eta = " ETA \(seconds / 60):\(String(format: "%02d", seconds % 60))"
    } else {
      eta = ""
    }
    let barWidth = max(10, width - label.count - figures.count - eta.count - 4)
    let filled = Int(fraction * Double(barWidth))
    let body = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
    return "\(label) [\(terminal.paint(body, bar.done ? .green : .bold))]\(figures)\(eta)"
  }
}
