import Foundation

/// Passes at most `limit` messages per `interval` seconds and counts the rest, so a flood of
/// bad datagrams or lines cannot stall the control loop on terminal output.
///
/// The first suppressed message of a window is followed, when the window ends, by one line
/// saying how many were dropped (``flush(now:)``).
package struct RateLimitedReporter: Sendable {
    package let limit: Int
    package let interval: Double
    var windowStart: Double = -.infinity
    var passed = 0
    package private(set) var suppressed = 0
    /// Everything suppressed since the reporter was made.
    package private(set) var totalSuppressed = 0

    package init(limit: Int = 10, interval: Double = 1) { self.limit = limit; self.interval = interval }

    /// Whether to print this message now (`now` in seconds, any monotonic origin).
    package mutating func admit(now: Double) -> Bool {
        if now - windowStart >= interval { windowStart = now; passed = 0 }
        if passed < limit { passed += 1; return true }
        suppressed += 1; totalSuppressed += 1
        return false
    }

    /// When the window has ended with messages suppressed, returns the summary line once.
    package mutating func flush(now: Double) -> String? {
        guard suppressed > 0, now - windowStart >= interval else { return nil }
        defer { suppressed = 0 }
        return "\(suppressed) more error\(suppressed == 1 ? "" : "s") suppressed (at most \(limit) a second are shown)"
    }
}
