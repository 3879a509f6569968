/// Finds attacks in a stream: the energy of the first difference (a gentle high-pass, so a
/// bass note's swell is not an attack) in chunks of 128 frames, compared with the mean of the
/// 8 chunks before (~21 ms at 48 kHz). A chunk 10× (10 dB) above that mean and above
/// −70 dBFS RMS is an onset. Positions are kept in a fixed ring, one slot per chunk of the span the caller needs; nothing allocates after `init`.
///
/// After the percussive-onset rule of C. Duxbury, M. Sandler, M. Davies, "A hybrid approach to
/// musical note onset detection" (DAFx 2002), reduced to its energy part: enough to keep
/// attacks out of stretched frames (``PhaseVocoder``).
package struct OnsetDetector: ~Copyable {
    package static let chunkFrames = 128
    static let history = 8
    static let ratio: Float = 10
    static let floor: Float = 1e-7 * Float(chunkFrames)  // −70 dBFS RMS
    /// Onsets remembered (a ring).
    package let capacity: Int

    @usableFromInline let state: UnsafeMutablePointer<Float>  // [0]: previous sample, [1]: running chunk energy, [2...]: last chunk energies
    @usableFromInline let onsets: UnsafeMutablePointer<Int>     // ring of onset positions
    @usableFromInline let counters: UnsafeMutablePointer<Int>   // [0]: frames seen, [1]: onsets written

    /// `span`: how many frames back onsets must stay known (the ring holds one per chunk of it).
    package init(span: Int) {
        capacity = span / Self.chunkFrames + 16
        state = .allocate(capacity: 2 + Self.history)
        onsets = .allocate(capacity: capacity)
        counters = .allocate(capacity: 2)
        reset()
    }

    deinit { state.deallocate(); onsets.deallocate(); counters.deallocate() }

    package func reset() {
        state.update(repeating: 0, count: 2 + Self.history)
        onsets.update(repeating: Int.min, count: capacity)
        counters.update(repeating: 0, count: 2)
    }

    /// Sets NaN and infinity in the energy history to zero; true if there was one. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    package func clearNonFinite() -> Bool { NonFiniteScan.zero(state, count: 2 + Self.history) }

    /// Feeds `count` frames of a mono mix.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package func process(_ x: UnsafePointer<Float>, count: Int) {
        var previous = state[0], energy = state[1]
        var position = counters[0]
        for i in 0..<count {
            let d = x[i] - previous
            previous = x[i]
            energy += d * d
            position += 1
            if position % Self.chunkFrames == 0 {
                var mean: Float = 0
                for h in 0..<Self.history { mean += state[2 + h] }
                mean /= Float(Self.history)
                if energy > Self.floor && energy > Self.ratio * mean {
                    onsets[counters[1] % capacity] = position - Self.chunkFrames
                    counters[1] += 1
                }
                for h in 0..<(Self.history - 1) { state[2 + h] = state[3 + h] }
                state[1 + Self.history] = energy
                energy = 0
            }
        }
        state[0] = previous; state[1] = energy
        counters[0] = position
    }

    /// The earliest onset at or after `position` (among those the ring still holds), if one was found.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package func firstOnset(atOrAfter position: Int) -> Int? {
        let written = counters[1]
        var k = written - 1
        var found: Int?
        while k >= 0 && k >= written - capacity {
            let p = onsets[k % capacity]
            if p < position { break }
            found = p
            k -= 1
        }
        return found
    }

    /// True when an onset was found at a position in `range` (among those the ring still holds).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package func hasOnset(in range: Range<Int>) -> Bool {
        let written = counters[1]
        var k = written - 1
        while k >= 0 && k >= written - capacity {
            let p = onsets[k % capacity]
            if range.contains(p) { return true }
            if p < range.lowerBound { return false }
            k -= 1
        }
        return false
    }
}
