import CTimbreSupport
import Foundation

/// Mains hum removal: an adaptive canceller at each harmonic of the mains frequency, the
/// mains found (50 or 60 Hz) and its drift followed.
///
/// - **Canceller**: per channel and harmonic, two LMS weights on internal cosine and sine
///   references (Widrow et al., Proc. IEEE 1975). Its transfer function is a notch at the
///   reference frequency whose 3 dB width is the step in radians per frame, so each harmonic
///   gets a notch `widthHz` wide (1.5 Hz by default, settling in about 1/(π·width) = 0.2 s)
///   and everything between passes untouched. No latency.
/// - **Drift**: every 0.1 s the weights' rotation since the last look is the fundamental's
///   frequency error (a harmonic k off by δ turns at k·δ), averaged over harmonics and
///   channels with the weights' size; a tenth of it is corrected (a first-order loop: a
///   time constant of 1 s, so a drift of 0.002 Hz/s is followed 0.002 Hz behind), within ±1.5 Hz of the nominal mains (grids hold ±0.2 Hz; a generator may stray further).
///   (Looking every 10 ms instead let the weights' ripple at twice the mains bias the
///   estimate by 0.005 Hz, which the 8th harmonic's notch felt; a second-order loop that
///   would follow a drift without lag rang against the cancellers' own settling.)
/// - **Finding the mains** (`.automatic`): both families run for the first second; the one
///   whose weights hold more power stays — if its weights held their size (a hum is steady;
///   speech, whose harmonics cross the notches, makes them swell and shrink): otherwise no
///   hum was found and the signal passes untouched. The step stays whole while deciding. A
///   hum that starts later is not looked for again.
/// - **Speech on the harmonics**: once the mains is found, the step is scaled by
///   min(1, 8·floor/power), `power` the residual's power over 10 ms and `floor` the lowest it
///   has been (rising at most 20 dB/s; under −140 dB, after digital silence, kept within
///   30 dB of `power`, so the step is not held for seconds when sound returns): a variable step size, as echo cancellers hold
///   adaptation during double talk. While speech sounds the weights hold the hum learnt in the
///   pauses and subtract it instead of notching the voice. (With a whole step an espeak-ng
///   voice, whose pitch holds on 100 Hz, lost its harmonics in 50 Hz notches: PESQ 2.8 on
///   hum at 20 dB SNR, now 4.2; a voice on the 2nd and 4th harmonics is kept 49.6 dB clean
///   instead of 5.4, `HumRemoverTests`.)
///
/// Harmonics above 0.45 of the rate are left out. The per-frame loop is in C
/// (`timbre_hum_process`); the references come from one complex rotation per frame.
public struct HumRemover: ~Copyable, @unchecked Sendable {
    public enum Mains: String, Sendable, CaseIterable {
        case automatic = "auto", fifty = "50", sixty = "60"
    }

    public struct Settings: Sendable, Equatable {
        public var mains: Mains
        /// Harmonics cancelled, the fundamental included.
        public var harmonics: Int
        /// Each notch's 3 dB width, Hz.
        public var widthHz: Double
        public init(mains: Mains = .automatic, harmonics: Int = 8, widthHz: Double = 1.5) {
            self.mains = mains; self.harmonics = harmonics; self.widthHz = widthHz
        }
    }

    /// The most the fundamental strays from 50 or 60 Hz, Hz.
    public static let mostDrift = 1.5
    /// The seconds between frequency updates.
    static let trackSeconds = 0.1
    /// The seconds both families run before the mains is chosen.
    public static let decisionSeconds = 1.0

    let state: UnsafeMutablePointer<TimbreHumState>
    var initial: TimbreHumState
    let weightCount: Int
    /// The weights (channels × 2 families × harmonics × (cos, sin)), their values at the last
    /// frequency update, and the references' scratch: the memory `state` points into.
    let weights: UnsafeMutablePointer<Double>
    let previous: UnsafeMutablePointer<Double>
    let references: UnsafeMutablePointer<Double>
    /// Per channel: the residual's short-term power and its floor (the step's control).
    let levels: UnsafeMutablePointer<Double>
    /// The residual's short-term power's time constant, s.
    static let levelSeconds = 0.01
    /// How fast the residual's floor may rise, dB per second.
    static let floorRiseDB = 20.0
    public let channelCount: Int

    public init(settings: Settings, sampleRate: Double, channelCount: Int) {
        precondition(channelCount >= 1 && settings.harmonics >= 1)
        self.channelCount = channelCount
        let nominal: [Double] = settings.mains == .sixty ? [60, 50] : [50, 60]
        let highest = settings.mains == .automatic ? 60.0 : nominal[0]
        let harmonics = max(1, min(settings.harmonics, Int((0.45 * sampleRate / (highest + Self.mostDrift)).rounded(.down))))
        weightCount = channelCount * 2 * harmonics * 2
        let chunk = Int(TIMBRE_HUM_CHUNK)
        let every = max(1, Int((Self.trackSeconds * sampleRate / Double(chunk)).rounded())) * chunk
        let decideAt = settings.mains == .automatic ? Int((Self.decisionSeconds * sampleRate / Double(chunk)).rounded()) * chunk : -1
        weights = .allocate(capacity: weightCount); previous = .allocate(capacity: weightCount)
        references = .allocate(capacity: 2 * chunk * harmonics * 2)
        weights.initialize(repeating: 0, count: weightCount); previous.initialize(repeating: 0, count: weightCount)
        references.initialize(repeating: 0, count: 2 * chunk * harmonics * 2)
        var initial = TimbreHumState(
            channels: Int32(channelCount), harmonics: Int32(harmonics), families: settings.mains == .automatic ? 2 : 1,
            decideAt: Int32(decideAt), trackEvery: Int32(every), rate: sampleRate, step: 2 * Double.pi * settings.widthHz / sampleRate,
            trackGain: 0.1, most: Self.mostDrift, nominal: (nominal[0], nominal[1]), fundamental: (nominal[0], nominal[1]), phase: (0, 0), origin: (0, 0),
            position: 0, steady: (0, 0), moving: (0, 0), weights: nil, previous: nil, references: nil, levels: nil,
            levelSmoothing: exp(-1 / (Self.levelSeconds * sampleRate)), floorRise: pow(10, Self.floorRiseDB / 10 / sampleRate),
            warmUp: Int64(3 * Self.levelSeconds * sampleRate))
        levels = .allocate(capacity: 2 * channelCount)
        for c in 0..<channelCount { levels[2 * c] = 0; levels[2 * c + 1] = 0 }
        initial.weights = weights; initial.previous = previous; initial.references = references; initial.levels = levels
        self.initial = initial
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        weights.deallocate(); previous.deallocate(); references.deallocate(); levels.deallocate(); state.deallocate()
    }

    /// The fundamental followed now, Hz (the chosen family's once the mains is found).
    public var fundamentalHz: Double { state.pointee.fundamental.0 }
    /// Whether the mains is still being found (both families running).
    public var deciding: Bool { state.pointee.families == 2 }
    /// Whether a hum is being removed (false when `.automatic` found none).
    public var removing: Bool { state.pointee.families > 0 }

    /// Silence before: the weights cleared, the mains to be found again.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for k in 0..<weightCount { weights[k] = 0; previous[k] = 0 }
        for c in 0..<channelCount { levels[2 * c] = 0; levels[2 * c + 1] = 0 }
        state.pointee = initial
    }

    /// Takes over `previous`'s weights, frequencies and decision (the same shape).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing HumRemover) {
        guard previous.weightCount == weightCount, previous.initial.nominal == initial.nominal,
              previous.initial.decideAt == initial.decideAt else { return }
        for k in 0..<weightCount { weights[k] = previous.weights[k]; self.previous[k] = previous.previous[k] }
        for k in 0..<(2 * channelCount) { levels[k] = previous.levels[k] }
        let o = previous.state.pointee
        state.pointee.families = o.families; state.pointee.decideAt = o.decideAt
        state.pointee.nominal = o.nominal; state.pointee.fundamental = o.fundamental; state.pointee.phase = o.phase; state.pointee.origin = o.origin
        state.pointee.position = o.position; state.pointee.steady = o.steady; state.pointee.moving = o.moving
    }

    /// Clears the weights if NaN or infinity reached them; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = !state.pointee.fundamental.0.isFinite || !state.pointee.fundamental.1.isFinite
        for k in 0..<weightCount where !weights[k].isFinite { bad = true }
        for k in 0..<(2 * channelCount) where !levels[k].isFinite { bad = true }
        if bad { reset() }
        return bad
    }

    /// Removes the hum from `frameCount` frames of every channel in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let state = state, pointers = UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self)
        _unsafePerformance { timbre_hum_process(state, pointers, Int32(frameCount)) }
    }
}
