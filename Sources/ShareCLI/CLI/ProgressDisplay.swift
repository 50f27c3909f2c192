import Foundation
import ShareKit
import Synchronization

/// Progress bars on stderr, one line per recipient (see `ProgressLine`), redrawn at most ten
/// times a second and removed cleanly at the end. Only used when stderr is a terminal; colour
/// only when allowed. The terminal's width is read at every redraw, so a resized window gets
/// lines that fit it. Thread-safe: senders report from their own threads.
final class ProgressDisplay: Sendable {
  private struct State {
    var lines: [ProgressLine] = []
    var drawnLines = 0
    /// The longest title drawn so far: every bar's title takes that much, so bars line up and
    /// never move left.
    var titleWidth = 0
    var lastDraw = ContinuousClock.now - .seconds(1)
  }

  private let state = Mutex(State())
  private let terminal: Terminal

  init(terminal: Terminal, labels: [String]) {
    self.terminal = terminal
    state.withLock { $0.lines = labels.map { ProgressLine(label: $0) } }
  }

  /// Changes line `index` and redraws: at once when `now` (a new phase or item), else when
  /// the last redraw is a tenth of a second old.
  func update(_ index: Int, now: Bool = false, _ change: (inout ProgressLine) -> Void) {
    state.withLock { state in
      guard state.lines.indices.contains(index) else { return }
      change(&state.lines[index])
      let time = ContinuousClock.now
      if now || time - state.lastDraw >= .milliseconds(100) {
        state.lastDraw = time
        draw(&state)
      }
    }
  }

  /// Line `index` as it stands.
  func line(_ index: Int) -> ProgressLine? {
    state.withLock { $0.lines.indices.contains(index) ? $0.lines[index] : nil }
  }

  /// Removes the bars from the screen.
  func clear() {
    state.withLock { state in
      terminal.errRaw(erase(state.drawnLines))
      state.drawnLines = 0
    }
  }

  /// Writes a line above the bars, keeping them intact.
  func print(_ line: String) {
    state.withLock { state in
      terminal.errRaw(erase(state.drawnLines) + line + "\n")
      state.drawnLines = 0
      draw(&state)
    }
  }

  private func draw(_ state: inout State) {
    let width = terminal.columns
    let now = ContinuousClock.now
    var text = erase(state.drawnLines)
    state.titleWidth = max(state.titleWidth, state.lines.map(\.fullTitle.count).max() ?? 0)
    for line in state.lines {
      let colour: Terminal.Colour = line.phase == .done ? .green : .bold
      text += line.render(width: width, at: now, titleWidth: state.titleWidth) { terminal.paint($0, colour) } + "\n"
    }
    state.drawnLines = state.lines.count
    terminal.errRaw(text)
  }

  /// Erases the current line (what the terminal echoed there, such as `^C`), then moves up
  /// over `count` drawn lines erasing each, and leaves the cursor at the start of the line.
  private func erase(_ count: Int) -> String {
    "\r\u{1b}[2K" + String(repeating: "\u{1b}[1A\u{1b}[2K", count: count)
  }
}
