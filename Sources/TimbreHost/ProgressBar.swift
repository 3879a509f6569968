import Foundation

/// A one-line progress bar on stderr, drawn only when stderr is a terminal:
/// `[##########----------]  50%  0:03  41.2× real time`.
package struct ProgressBar {
    package let enabled: Bool
    package var lastDraw = Date.distantPast

    package init(enabled: Bool) { self.enabled = enabled && isatty(STDERR_FILENO) == 1 }

    package mutating func update(fraction: Double, elapsed: Double, speed: Double, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        if !force && now.timeIntervalSince(lastDraw) < 0.1 { return }
        lastDraw = now
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(format: "\r[%@] %3d%%  %@  %.1f× real time", bar, Int(fraction * 100), Self.clock(elapsed), speed)
        FileHandle.standardError.write(Data(line.utf8))
    }

    package func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    package static func clock(_ seconds: Double) -> String {
        let s = Int(seconds)
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
