import Foundation

/// A de-plosive: the band under a split frequency may not jump by more than a set rise over its
/// own recent level, so the low-frequency blast of a popped "p" or "b" is turned down while
/// steady low sound (a voice's body, a bass) passes as it is.
///
/// - **Detector**, one for all channels (the image does not move): a 4th-order Butterworth
///   low-pass at the split (two RBJ cookbook biquads, Q 0.5412 and 1.3066); the low band's power over
///   5 ms against its power over 300 ms (one-pole averages). The low band's power gain is
///   min(1, 10^(rise/10) · slow / fast): the band may stand `riseDB` over its own 300 ms
///   level. A pop's blast comes out of near-silence within a few milliseconds and is turned
///   down by the excess; a word's own low band, rising as fast, ramps in over its first ~20 ms
///   (for a 12 dB rise) as the slow average catches up.
/// - **Gain**: follows a fall at once, and a rise with the release time constant (in power). It is applied
///   by two RBJ low shelves at the split (Q 1/√2), each turning the lows down by its square
///   root, their coefficients worked out every frame: a shelf at 0 dB is the identity, so
///   with nothing turned down the output is the input (to rounding), and unlike a
///   subtracted low band (x − LP(x) keeps much of the lows, the low-pass's phase being off)
///   the lows go down by the whole gain.
///
/// Scored in `scripts/plosive-study.py` (docs/ACCURACY.md): after the voice clean-up, on
/// speech with pops 0, 6 and 12 dB over the words, PESQ rises 0.02, 0.10 and 0.23 and STOI
/// 0.001–0.004; without pops PESQ is unchanged and STOI 0.001 lower. No latency; the same bits
/// for every block size.
public struct PlosiveSuppressor: ~Copyable, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        /// The split frequency, Hz: the band under it is the one turned down.
        public var splitHz: Double
        /// How far the low band may rise over its 300 ms level, dB.
        public var riseDB: Double
        /// How fast the gain comes back, ms (time constant).
        public var releaseMs: Double

        public init(splitHz: Double = 300, riseDB: Double = 12, releaseMs: Double = 50) {
            self.splitHz = splitHz; self.riseDB = riseDB; self.releaseMs = releaseMs
        }
    }

    public let channelCount: Int
    /// The two low-pass sections' coefficients (b0 b1 b2 a1 a2 each).
    let sections: (BiquadCoefficients, BiquadCoefficients)
    /// Per channel: the detector's two low-pass sections' transposed direct-form II states,
    /// then the two shelves' (8 doubles).
    let filterState: UnsafeMutablePointer<Double>
    /// cos w₀ and α of the shelves at the split (RBJ cookbook, Q 1/√2).
    let shelfCosine: Double
    let shelfAlpha: Double
    /// The fast and slow power averages and the gain.
    let detector: UnsafeMutablePointer<Double>
    let fastCoefficient: Double
    let slowCoefficient: Double
    let releaseCoefficient: Double
    let allowed: Double

    /// The averages' time constants, seconds.
    public static let fastSeconds = 0.005
    public static let slowSeconds = 0.3

    public init(settings: Settings, sampleRate: Double, channelCount: Int) {
        precondition(channelCount >= 1 && sampleRate > 0)
        self.channelCount = channelCount
        let split = min(settings.splitHz, 0.45 * sampleRate)
        // Butterworth 4th order: Q = 1/(2 cos(π/8)) and 1/(2 cos(3π/8)).
        sections = (BilinearDesign.lowPass(frequencyHz: split, q: 0.5411961001461970, sampleRate: sampleRate),
                    BilinearDesign.lowPass(frequencyHz: split, q: 1.3065629648763766, sampleRate: sampleRate))
        filterState = .allocate(capacity: 8 * channelCount)
        filterState.initialize(repeating: 0, count: 8 * channelCount)
        let w0 = 2 * Double.pi * split / sampleRate
        shelfCosine = cos(w0); shelfAlpha = sin(w0) / (2 * 0.5.squareRoot())
        detector = .allocate(capacity: 3)
        detector.initialize(repeating: 0, count: 3)
        fastCoefficient = exp(-1 / (Self.fastSeconds * sampleRate))
        slowCoefficient = exp(-1 / (Self.slowSeconds * sampleRate))
        releaseCoefficient = exp(-1 / (max(settings.releaseMs, 0.1) / 1000 * sampleRate))
        allowed = pow(10, settings.riseDB / 10)
        reset()
    }

    deinit { filterState.deallocate(); detector.deallocate() }

    /// Silence before.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        filterState.update(repeating: 0, count: 8 * channelCount)
        detector[0] = 0; detector[1] = 0; detector[2] = 1
    }

    /// Takes over `previous`'s stream (the same channels).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing PlosiveSuppressor) {
        guard previous.channelCount == channelCount else { return }
        for k in 0..<(8 * channelCount) { filterState[k] = previous.filterState[k] }
        for k in 0..<3 { detector[k] = previous.detector[k] }
    }

    /// Clears everything if NaN or infinity reached the state; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for k in 0..<(8 * channelCount) where !filterState[k].isFinite { bad = true }
        for k in 0..<3 where !detector[k].isFinite { bad = true }
        if bad { reset() }
        return bad
    }

    /// The low band of channel `c`'s sample `x` (the two sections, state updated).
    @inline(__always)
    func lowBand(_ x: Double, channel c: Int) -> Double {
        let s = filterState + 8 * c, (p, q) = sections
        let y1 = p.b0 * x + s[0]
        s[0] = p.b1 * x - p.a1 * y1 + s[1]
        s[1] = p.b2 * x - p.a2 * y1
        let y2 = q.b0 * y1 + s[2]
        s[2] = q.b1 * y1 - q.a1 * y2 + s[3]
        s[3] = q.b2 * y1 - q.a2 * y2
        return y2
    }

    /// √x (no lock, no allocation: a square-root instruction).
    @inline(__always)
    static func root(_ x: Double) -> Double { _unsafePerformance { x.squareRoot() } }

    /// One RBJ low-shelf section (Q 1/√2) with shelf amplitude A² (A = 10^(dB/40)), run on `x`
    /// with state `s` (transposed direct form II). At A = 1 it is the identity.
    @inline(__always)
    static func shelf(_ x: Double, a: Double, rootA: Double, cosine c: Double, alpha: Double, state s: UnsafeMutablePointer<Double>) -> Double {
        let k = 2 * rootA * alpha
        let a0 = (a + 1) + (a - 1) * c + k, inverse = 1 / a0
        let b0 = a * ((a + 1) - (a - 1) * c + k) * inverse, b1 = 2 * a * ((a - 1) - (a + 1) * c) * inverse
        let b2 = a * ((a + 1) - (a - 1) * c - k) * inverse
        let a1 = -2 * ((a - 1) + (a + 1) * c) * inverse, a2 = ((a + 1) + (a - 1) * c - k) * inverse
        let y = b0 * x + s[0]
        s[0] = b1 * x - a1 * y + s[1]
        s[1] = b2 * x - a2 * y
        return y
    }

    /// De-pops `frameCount` frames of every channel in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var fast = detector[0], slow = detector[1], gain = detector[2]
        let (a, b, r, allowed) = (fastCoefficient, slowCoefficient, releaseCoefficient, allowed)
        let scale = 1 / Double(channelCount)
        for i in 0..<frameCount {
            var power = 0.0
            for c in 0..<channelCount {
                let low = lowBand(Double(channels[c][i]), channel: c)
                power += low * low
            }
            power *= scale
            fast = a * fast + (1 - a) * power
            slow = b * slow + (1 - b) * power
            // The power gain: the low band at most `allowed` times its slow power.
            let target = fast > allowed * slow ? allowed * slow / fast : 1
            gain = target < gain ? target : r * gain + (1 - r) * target
            // Two shelves, each turning the lows' amplitude down by gain^¼ (A² = gain^¼).
            let a = Self.root(Self.root(Self.root(gain))), rootA = Self.root(a), (cosine, alpha) = (shelfCosine, shelfAlpha)
            for c in 0..<channelCount {
                let s = filterState + 8 * c + 4
                let first = Self.shelf(Double(channels[c][i]), a: a, rootA: rootA, cosine: cosine, alpha: alpha, state: s)
                let y = Self.shelf(first, a: a, rootA: rootA, cosine: cosine, alpha: alpha, state: s + 2)
                channels[c][i] = Float(y)
            }
        }
        detector[0] = fast; detector[1] = slow; detector[2] = gain
    }
}
