import Foundation
import TimbreDSP

/// Memoises filter designs on the control side, so a live edit of one EQ band redesigns
/// that band only (a matched design with its refinement costs about a millisecond; a preset
/// has up to dozens of sections). Never touched by the audio thread.
package final class DesignCache: @unchecked Sendable {
    package static let shared = DesignCache()
    struct Key: Hashable { var design: FilterDesign; var sampleRate: Double }
    private var entries: [Key: [BiquadCoefficients]] = [:]
    private let lock = NSLock()
    private let capacity = 1024

    /// Forgets every design (tests that time designing).
    package func removeAll() { lock.lock(); entries.removeAll(); lock.unlock() }

    func sections(_ design: FilterDesign, sampleRate: Double) -> [BiquadCoefficients] {
        let key = Key(design: design, sampleRate: sampleRate)
        lock.lock()
        if let hit = entries[key] { lock.unlock(); return hit }
        lock.unlock()
        let designed = design.sections(sampleRate: sampleRate)
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = designed
        lock.unlock()
        return designed
    }
}
