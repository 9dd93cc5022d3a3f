import Foundation

/// A one-line progress bar on stderr (only on a terminal), redrawn at most ten times a second.
struct Progress {
    let total: Int
    let enabled: Bool
    /// What is counted, plural: `files`, `codes`.
    let noun: String
    private var done = 0
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drawn = false

    init(total: Int, enabled: Bool, noun: String = "files") {
        self.total = total
        self.enabled = enabled
        self.noun = noun
    }

    mutating func advance(failed: Int) {
        done += 1
        guard enabled, ContinuousClock.now - lastDraw > .milliseconds(100) || done == total else { return }
        lastDraw = .now
        let width = 30
        let filled = width * done / max(1, total)
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        Console.terminalControl("\r[\(bar)] \(done)/\(total) \(noun)\(failed > 0 ? ", \(failed) failed" : "")")
        drawn = true
    }

    /// Removes the bar so that other output starts on a clean line.
    mutating func clear() {
        guard drawn else { return }
        Console.terminalControl("\r\u{1B}[K")
        drawn = false
    }
}
