import Foundation

/// A lookahead brickwall limiter on true peak: no output sample, and no inter-sample peak
/// between them, above the ceiling.
///
/// Per input frame n, each channel's peak between frames n − 32 and n − 31 is found by an
/// ``InterSamplePeakDetector`` (the true-peak meter's reconstruction: 4 points per sample
/// interval, 64 taps a point, and the parabola's vertex at each local maximum); with stereo
/// link the loudest channel's counts (partly, for `link` < 1). The
/// gain that frame needs is r[n] = min(1, ceiling / peak). Three stages turn it into a smooth
/// gain that is never above what any nearby peak needs:
///
/// 1. a running minimum of r over H = L + 32 frames (L: lookahead frames), taken as the gain
///    the running maximum of the peaks over H needs (a ``PeakHold``: the gain a peak needs falls
///    as the peak rises, so the two are the same number),
/// 2. a moving average of that over L frames — a ramp down that starts L frames before the
///    peak; each held gain is rounded to a multiple of 2⁻³⁸ first, so the running sum is exact,
/// 3. a release: the gain rises toward the average with time constant `release` in dB (it
///    covers 1 − 1/e of a rise in dB after one time constant) and falls with it at once. With
///    a = log₂ of the average and l = log₂ of the gain, l[n] = min(a[n], α·l[n−1] + (1−α)·a[n]),
///    carried as d = l − a ≤ 0: d[n] = min(0, α·(d[n−1] + a[n−1] − a[n])) — one multiply-add
///    and one minimum a frame (a d within 1e-7 of 0 is 0); the logarithms and powers are
///    taken in loops the compiler vectorises.
///
/// The audio is delayed by D = L + 47 frames (the latency), which lines the 16 frames on either
/// side of every peak up inside the frames where the average is at or below that peak's gain. (Signalsmith Audio, "Designing a straightforward limiter", 2022, for the
/// minimum-then-average construction.) The inter-sample values of the output also depend on
/// the gain's slope across the span; ``Settings/marginDB`` (0.05 dB by default) keeps the
/// detector's own under-read and that effect below the ceiling, and the detector's high-band
/// allowance covers what its interpolator cannot see near Nyquist (see
/// ``InterSamplePeakDetector``), as the tests measure with the ideal 16× reconstruction.
///
/// With ``Settings/samplePeak`` it holds the samples only, as sample-peak limiters do (ffmpeg's
/// `alimiter`, LSP's limiter without oversampling): no detector (the peak of frame n is |x[n]|),
/// no neighbourhood (K = 0), so the latency is L − 1 and inter-sample peaks may pass the ceiling.
public struct TruePeakLimiter: ~Copyable, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        /// −20…0 dBTP.
        public var ceilingDB: Double
        public var releaseSeconds: Double
        public var lookaheadSeconds: Double
        /// 0…1: 0 each channel its own gain, 1 one gain for all.
        public var link: Double
        /// How far below the ceiling the detector aims, dB.
        public var marginDB: Double
        /// Hold the samples only (no inter-sample detector): cheaper, latency L − 1.
        public var samplePeak: Bool
        public init(ceilingDB: Double = -1, releaseSeconds: Double = 0.1, lookaheadSeconds: Double = 0.002, link: Double = 1, marginDB: Double = 0.05,
                    samplePeak: Bool = false) {
            self.ceilingDB = ceilingDB; self.releaseSeconds = releaseSeconds; self.lookaheadSeconds = lookaheadSeconds
            self.link = link; self.marginDB = marginDB; self.samplePeak = samplePeak
        }
    }

    public let settings: Settings
    public let channelCount: Int
    public let maximumBlockFrames: Int
    /// D = L + 47: frames the audio is delayed by.
    public let latencyFrames: Int
    /// L, the length of the gain ramp.
    public let lookaheadFrames: Int
    /// H, the running minimum's span.
    let holdFrames: Int
    /// One gain for every channel (mono, or `link` = 1): worked out once, from the loudest
    /// channel, into row 0 (the other rows' state is unused).
    let sharedGain: Bool
    /// The detector's aim (ceiling less the margin) as a factor, and the release's smoothing
    /// coefficient: the two settings a live edit moves in place (``retune(ceiling:releaseCoefficient:)``).
    private(set) var ceiling: Float
    private(set) var releaseCoefficient: Float
    let detector: InterSamplePeakDetector
    /// Per row: the running maximum of its peaks over H frames.
    let holds: UnsafeMutablePointer<PeakHold>
    /// Per row: the average's history (the last L held gains, then room for a block's) and its
    /// sum, in units of 2⁻³⁸: each held gain is rounded to a multiple of 2⁻³⁸ (``quantum``), so
    /// every sum of them is a whole number of units (L ≤ 7680 < 2¹³ ones: under 2⁵¹) — exact, no
    /// rounding carried, L ones sum to L again — and the running sum is an integer addition
    /// (one cycle a frame, where a `Double` one waits three or four).
    let history: UnsafeMutablePointer<Int64>
    let sums: UnsafeMutablePointer<Int64>
    /// One unit of the history: 2⁻³⁸.
    static let unit: Double = 0x1p-38
    /// Per row: [0] d = log₂ gain − log₂ average and [1] log₂ average, of the last frame.
    let levels: UnsafeMutablePointer<Float>
    /// Adding 2¹⁴ rounds a gain in [0, 1] to a multiple of 2⁻³⁸ (2¹⁴ · 2⁻⁵², the sum's last
    /// place); the sum's bits less 2¹⁴'s then count those multiples.
    static let quantum: Double = 16384
    /// Per channel `maximumBlockFrames`: the detector's peaks, then the gains; then four rows
    /// of work for a pair of rows' stages.
    let scratch: UnsafeMutablePointer<Float>
    let delay: DelayLine

    public init(settings: Settings, sampleRate: Double, channelCount: Int, maximumBlockFrames: Int) {
        // Every check before the first stored property: a trap halfway through initialising a
        // non-copyable value with a deinit made the optimiser destroy members not yet made
        // (a release build freed the detector's garbage pointers).
        precondition(channelCount >= 1 && maximumBlockFrames >= 1)
        let lookahead = Self.lookaheadFrames(settings, sampleRate: sampleRate)
        // A peak found at frame n lies near n − d (d: the detector's delay); the gain must be at
        // or below its need over the K = 16 frames either side of it.
        // (Sample peaks: the peak is the frame itself, d = K = 0.)
        let d = settings.samplePeak ? 0 : InterSamplePeakDetector.delayFrames, k = settings.samplePeak ? 0 : 16
        let latency = Self.latencyFrames(lookaheadFrames: lookahead, samplePeak: settings.samplePeak)
        precondition(latency == lookahead - 1 + d + k)
        precondition(lookahead < 8192)  // the average's exact sums
        let hold = lookahead + 2 * k
        self.settings = settings; self.channelCount = channelCount; self.maximumBlockFrames = maximumBlockFrames
        lookaheadFrames = lookahead
        holdFrames = hold
        sharedGain = channelCount == 1 || settings.link >= 1
        latencyFrames = latency
        ceiling = Self.ceilingFactor(ceilingDB: settings.ceilingDB, marginDB: settings.marginDB)
        releaseCoefficient = Self.releaseCoefficient(seconds: settings.releaseSeconds, sampleRate: sampleRate)
        let holds = UnsafeMutablePointer<PeakHold>.allocate(capacity: channelCount)
        for c in 0..<channelCount { (holds + c).initialize(to: PeakHold(span: hold)) }
        self.holds = holds
        history = .allocate(capacity: channelCount * (lookahead + maximumBlockFrames))
        history.initialize(repeating: 1 << 38, count: channelCount * (lookahead + maximumBlockFrames))
        levels = .allocate(capacity: 2 * channelCount)
        levels.initialize(repeating: 0, count: 2 * channelCount)
        sums = .allocate(capacity: channelCount)
        sums.initialize(repeating: Int64(lookahead) << 38, count: channelCount)
        scratch = .allocate(capacity: (2 * channelCount + 4) * maximumBlockFrames)
        scratch.initialize(repeating: 0, count: (2 * channelCount + 4) * maximumBlockFrames)
        detector = InterSamplePeakDetector(channelCount: channelCount)
        delay = DelayLine(frames: latency, channelCount: channelCount)
        reset()
    }

    /// The detector's aim for a ceiling in dB: the ceiling less the margin, as a factor.
    public static func ceilingFactor(ceilingDB: Double, marginDB: Double = 0.05) -> Float { Float(pow(10, (ceilingDB - marginDB) / 20)) }

    /// The release's per-frame smoothing coefficient (0 for an instant release).
    public static func releaseCoefficient(seconds: Double, sampleRate: Double) -> Float {
        seconds > 0 ? Float(exp(-1 / (seconds * sampleRate))) : 0
    }

    /// A new ceiling and release, from the next block on (audio thread; both worked out on the
    /// control thread by ``ceilingFactor(ceilingDB:marginDB:)`` and
    /// ``releaseCoefficient(seconds:sampleRate:)``). The gains already averaged move to the new
    /// ceiling over the lookahead (the average's length) and the release: a ceiling lowered
    /// mid-stream reaches its new value within the lookahead, never jumps.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func retune(ceiling: Float, releaseCoefficient: Float) {
        self.ceiling = ceiling
        self.releaseCoefficient = releaseCoefficient
    }

    /// The latency of a limiter with `lookaheadFrames` of lookahead: L − 1 + 32 + 16 on true
    /// peak, L − 1 on sample peak.
    /// The lookahead in whole frames (at least one) that `settings` give at `sampleRate`.
    public static func lookaheadFrames(_ settings: Settings, sampleRate: Double) -> Int {
        max(1, Int((settings.lookaheadSeconds * sampleRate).rounded()))
    }

    public static func latencyFrames(lookaheadFrames: Int, samplePeak: Bool = false) -> Int {
        max(1, lookaheadFrames) - 1 + (samplePeak ? 0 : InterSamplePeakDetector.delayFrames + 16)
    }

    /// Frees the holds and buffers (the detector and delay free themselves).
    deinit {
        holds.deinitialize(count: channelCount); holds.deallocate()
        history.deallocate(); levels.deallocate(); sums.deallocate(); scratch.deallocate()
    }

    /// Back to silence: unity gain, empty detector and delay.
    public func reset() {
        detector.reset(); delay.reset()
        history.update(repeating: 1 << 38, count: channelCount * (lookaheadFrames + maximumBlockFrames))
        for c in 0..<channelCount {
            holds[c].reset()
            levels[2 * c] = 0; levels[2 * c + 1] = 0
            sums[c] = Int64(lookaheadFrames) << 38
        }
    }

    /// Continues `previous` (same lookahead and channels): its detector, gains and delayed audio.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing TruePeakLimiter) {
        guard previous.lookaheadFrames == lookaheadFrames && previous.holdFrames == holdFrames && previous.channelCount == channelCount else { return }
        detector.continueState(from: previous.detector)
        delay.continueState(from: previous.delay)
        // A shared gain lives in row 0: every row continues from it.
        let l = lookaheadFrames
        for c in 0..<channelCount {
            let from = previous.sharedGain ? 0 : c
            holds[c].continueState(from: previous.holds[from])
            // (Only the last L of the history carry over; the rest is a block's room.)
            for k in 0..<l { history[c * (l + maximumBlockFrames) + k] = previous.history[from * (l + previous.maximumBlockFrames) + k] }
            for k in 0..<2 { levels[2 * c + k] = previous.levels[2 * from + k] }
            sums[c] = previous.sums[from]
        }
    }

    /// Sets NaN and infinity in the memory to zero (gains to 1): the delayed audio, the
    /// detector's carried samples, the holds and the smoothing. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let delayed = delay.clearNonFinite(), carried = detector.clearNonFinite()
        var bad = false
        for k in 0..<(2 * channelCount) where !levels[k].isFinite { bad = true }
        for c in 0..<channelCount where holds[c].clearNonFinite() { bad = true }
        if bad { reset() }
        return bad || delayed || carried
    }

    /// Limits `frameCount` (≤ `maximumBlockFrames`) frames of `channels` in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        // 1. Per-frame (inter-sample) peaks.
        // (Stretches too quiet to reach the ceiling skip the reconstruction: only frames
        // over `ceiling` change the gain, and those are always reconstructed exactly.)
        let peaks = scratch, stride = maximumBlockFrames
        if settings.samplePeak {
            for c in 0..<channelCount {
                let x = channels[c], p = peaks + c * stride
                for i in 0..<frameCount { p[i] = abs(x[i]) }
            }
        } else {
            detector.process(channels, frameCount: frameCount, into: peaks, stride: stride, floor: ceiling)
        }
        limit(channels, frameCount: frameCount)
    }

    /// Limits `frameCount` frames of `channels` in place, given each channel's per-frame peaks
    /// at `peaks[c · stride + i]` — what the detector (or, on sample peak, |x|) would find for
    /// these frames. For a caller that knows them already: `--normalize`'s trials run the same
    /// audio at several gains, and the peaks of g·x are g times those of x. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, peaks given: UnsafePointer<Float>, stride givenStride: Int) {
        for c in 0..<channelCount {
            let from = given + c * givenStride, to = scratch + c * maximumBlockFrames
            for i in 0..<frameCount { to[i] = from[i] }
        }
        limit(channels, frameCount: frameCount)
    }

    /// Each gain row's peak of each frame: with a shared gain the loudest channel's, else
    /// `link` × the loudest + (1 − `link`) × the row's own. `peaks[c · stride + i]` per
    /// channel in, `rows[r · rowStride + i]` out (one row with a shared gain, else one per
    /// channel). What ``gains(fromHeldPeaks:stride:frameCount:)`` needs, before the hold.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func rowPeaks(_ peaks: UnsafePointer<Float>, stride: Int, frameCount n: Int, into rows: UnsafeMutablePointer<Float>, rowStride: Int) {
        let loudest = rows  // row 0 first holds the loudest channel's
        for i in 0..<n { loudest[i] = peaks[i] }
        for c in 1..<max(1, channelCount) { let p = peaks + c * stride; for i in 0..<n { loudest[i] = max(loudest[i], p[i]) } }
        guard !sharedGain else { return }
        let link = Float(settings.link)
        for c in (0..<channelCount).reversed() {  // row 0 (the loudest) last
            let own = peaks + c * stride, row = rows + c * rowStride
            for i in 0..<n { row[i] = link * loudest[i] + (1 - link) * own[i] }
        }
    }

    /// Gain rows (1 with a shared gain, else one per channel).
    public var gainRows: Int { sharedGain ? 1 : channelCount }

    /// The frames a row's peak is held over (H): a caller holding peaks itself gives each
    /// row's ``rowPeaks(_:stride:frameCount:into:rowStride:)`` to a ``PeakHold`` of this span.
    public var holdSpan: Int { holdFrames }

    /// Stages 2 and 3 on the peaks in the scratch's first rows.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func limit(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let stride = maximumBlockFrames, n = frameCount
        let peaks = scratch, gains = scratch + channelCount * stride
        let rows = gainRows
        rowPeaks(peaks, stride: stride, frameCount: n, into: gains, rowStride: stride)
        // At rest — nothing in this block over the ceiling, and every row settled at unity —
        // every gain is 1: only the holds move on.
        if atRest(rows: rows, rowPeaks: gains, frameCount: n) {
            for c in 0..<rows {
                holds[c].skipQuiet(count: n)
                let g = gains + c * stride
                for i in 0..<n { g[i] = 1 }
            }
        } else {
            // 1. Each row's peak held over H frames, in place; 2. and 3. the gains from them.
            for c in 0..<rows { holds[c].process(gains + c * stride, into: gains + c * stride, count: n) }
            smoothHeldPeaks(gains, stride: stride, frameCount: n)
        }
        // The delayed audio times the gain.
        delay.process(channels, frameCount: n)
        for c in 0..<channelCount {
            let p = channels[c], g = gains + (sharedGain ? 0 : c) * stride
            for i in 0..<n { p[i] *= g[i] }
        }
    }

    /// The limiter's gains for `frameCount` frames (≤ `maximumBlockFrames`) from each gain
    /// row's held peak — ``rowPeaks(_:stride:frameCount:into:rowStride:)`` through a
    /// ``PeakHold`` of ``holdSpan`` frames — at `held[r · stride + i]`, in place. The limiter's
    /// output for those frames is its input delayed by ``latencyFrames`` times these gains; the
    /// audio and the limiter's own detector, holds and delay are not touched. For a caller that
    /// holds the peaks of a whole file once and runs the limiter at several gains (`--normalize`'s
    /// trials: the held peaks of g·x are g times those of x). Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func gains(fromHeldPeaks held: UnsafeMutablePointer<Float>, stride: Int, frameCount n: Int) {
        if smoothingAtRest(peaks: held, stride: stride, frameCount: n) {
            for c in 0..<gainRows { let g = held + c * stride; for i in 0..<n { g[i] = 1 } }
        } else {
            smoothHeldPeaks(held, stride: stride, frameCount: n)
        }
    }

    /// Stages 2 and 3: held peaks in, gains out (in place), per row. Rows go in pairs through
    /// the release, whose recursion is a chain of dependent operations a frame: two rows'
    /// chains side by side take about the time of one (unlinked stereo, and `--normalize`'s
    /// trials at two gains). Each row's arithmetic is the same alone or paired.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func smoothHeldPeaks(_ rowsIn: UnsafeMutablePointer<Float>, stride rowStride: Int, frameCount n: Int) {
        let stride = maximumBlockFrames
        // Per row of a pair: its logarithms, then its release steps.
        let work = scratch + 2 * channelCount * stride
        var c = 0
        while c < gainRows {
            let paired = c + 1 < gainRows
            let g0 = rowsIn + c * rowStride, g1 = rowsIn + (c + 1) * rowStride
            let log0 = work, steps0 = work + stride, log1 = work + 2 * stride, steps1 = work + 3 * stride
            averageLogarithms(g0, row: c, frameCount: n, into: log0)
            if paired {
                averageLogarithms(g1, row: c + 1, frameCount: n, into: log1)
                releaseSteps(log0, log1, rows: c, c + 1, frameCount: n, into: steps0, steps1)
            } else {
                releaseSteps(log0, log0, rows: c, c, frameCount: n, into: steps0, steps0)
            }
            // gain = average · 2^d, never above the average (the guarantee rests on the average).
            Self.releasedGains(g0, steps: steps0, count: n)
            if paired { Self.releasedGains(g1, steps: steps1, count: n) }
            c += paired ? 2 : 1
        }
    }

    /// Stage 2 for row `c`: each held peak's needed gain, min(1, ceiling / peak), then their
    /// moving average over L frames, in place in `g`; and log₂ of each average into `out`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func averageLogarithms(_ g: UnsafeMutablePointer<Float>, row c: Int, frameCount n: Int, into out: UnsafeMutablePointer<Float>) {
        let ceiling = ceiling, length = lookaheadFrames
        for i in 0..<n { let p = g[i]; g[i] = p > ceiling ? ceiling / p : 1 }
        // Each held gain rounded to the quantum after the L before it, then the running sum
        // (exact) and the average. (g + 2¹⁴ has the exponent 14 for every g in [0, 1], so its
        // mantissa counts 2⁻³⁸s: its bits less 2¹⁴'s are the rounded gain in units — no checked
        // conversion, vectorised.)
        let past = history + c * (length + maximumBlockFrames), incoming = past + length
        let q = Self.quantum, qBits = Int64(bitPattern: Self.quantum.bitPattern)
        for i in 0..<n { incoming[i] = Int64(bitPattern: (Double(g[i]) + q).bitPattern) &- qBits }
        var sum = sums[c]
        let full = Int64(length) << 38, inverse = 1 / Double(length), unit = Self.unit
        for i in 0..<n {
            sum &+= incoming[i] &- past[i]
            g[i] = sum == full ? 1 : Float((Double(sum) * unit) * inverse)
        }
        sums[c] = sum
        for k in 0..<length { past[k] = past[n + k] }
        Self.logarithms(g, into: out, count: n)
    }

    /// Stage 3's recursion for rows `c0` and `c1` side by side (the same row twice for one
    /// alone): from a = log₂ average, d[n] = min(0, α·(d[n−1] + a[n−1] − a[n])), into `steps`.
    /// (A d within 1e-7 of 0 — 6e-7 dB, under a Float gain's resolution — is 0, so a settled
    /// limiter reaches the at-rest path instead of decaying toward 0 for seconds.)
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func releaseSteps(_ log0: UnsafePointer<Float>, _ log1: UnsafePointer<Float>, rows c0: Int, _ c1: Int, frameCount n: Int,
                      into steps0: UnsafeMutablePointer<Float>, _ steps1: UnsafeMutablePointer<Float>) {
        let alpha = releaseCoefficient
        var previous0 = levels[2 * c0 + 1], d0 = levels[2 * c0], previous1 = levels[2 * c1 + 1], d1 = levels[2 * c1]
        if c0 == c1 {
            for i in 0..<n {
                let a = log0[i], e = alpha * d0 + alpha * (previous0 - a)
                d0 = e > -1e-7 ? 0 : e
                previous0 = a; steps0[i] = d0
            }
        } else {
            for i in 0..<n {
                let a0 = log0[i], e0 = alpha * d0 + alpha * (previous0 - a0)
                let a1 = log1[i], e1 = alpha * d1 + alpha * (previous1 - a1)
                d0 = e0 > -1e-7 ? 0 : e0; d1 = e1 > -1e-7 ? 0 : e1
                previous0 = a0; steps0[i] = d0
                previous1 = a1; steps1[i] = d1
            }
            levels[2 * c1] = d1; levels[2 * c1 + 1] = previous1
        }
        levels[2 * c0] = d0; levels[2 * c0 + 1] = previous0
    }

    /// True when every hold is quiet (every peak in it under the ceiling) and the smoothing is
    /// at rest for the block's row peaks (``smoothingAtRest(peaks:stride:frameCount:)``).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func atRest(rows: Int, rowPeaks: UnsafePointer<Float>, frameCount: Int) -> Bool {
        for c in 0..<rows where !holds[c].isQuiet(under: ceiling) { return false }
        return smoothingAtRest(peaks: rowPeaks, stride: maximumBlockFrames, frameCount: frameCount)
    }

    /// True when no row's peak in the block is over the ceiling and every row is settled at
    /// unity: the average's history all ones (its sum exactly L), the gain at the average. Every
    /// gain of the block is then 1, and stages 2 and 3 would leave their state as it is.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func smoothingAtRest(peaks: UnsafePointer<Float>, stride: Int, frameCount: Int) -> Bool {
        let limit = ceiling
        for c in 0..<gainRows {
            guard sums[c] == Int64(lookaheadFrames) << 38, levels[2 * c] == 0, levels[2 * c + 1] == 0 else { return false }
            let p = peaks + c * stride
            for i in 0..<frameCount where p[i] > limit { return false }
        }
        return true
    }

    /// `out[i] = log₂ x[i]`, in a loop the compiler vectorises (the same arithmetic in every
    /// lane, wherever a block ends).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    static func logarithms(_ x: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { out[i] = FastLogExp.log2Branchless(x[i]) }
    }

    /// `gains[i] = min(gains[i], gains[i] · 2^steps[i])` (steps ≤ 0), vectorised; 2^0 is
    /// exactly 1, so a gain settling at its average does not step at the end.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    static func releasedGains(_ gains: UnsafeMutablePointer<Float>, steps: UnsafePointer<Float>, count: Int) {
        for i in 0..<count { let g = gains[i]; gains[i] = min(g, g * FastLogExp.exp2Nearest(steps[i])) }
    }

    /// The smallest gain of the last `process` call (its `frameCount` frames, every channel), dB.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func lowestGainDB(frameCount: Int) -> Double {
        min(0, GainRows.lowestDB(scratch + channelCount * maximumBlockFrames, rows: sharedGain ? 1 : channelCount, stride: maximumBlockFrames, frameCount: frameCount))
    }
}

extension TruePeakLimiter: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A limiter with `settings` for `format`.
    public init?(_ settings: Settings, format: KernelFormat) {
        self.init(settings: settings, sampleRate: format.sampleRate, channelCount: format.channelCount, maximumBlockFrames: format.maximumBlockFrames)
    }
}
