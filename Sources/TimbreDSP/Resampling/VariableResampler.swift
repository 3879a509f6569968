import CTimbreSupport
import Foundation

/// A band-limited resampler whose ratio may change at any time (varispeed 0.25–4×, pitch
/// glides), for planar Float audio; pull model like ``Resampler``; real-time safe.
///
/// The kernel is a Kaiser-windowed sinc (120 dB, passband to 0.85 of the lower Nyquist)
/// tabulated at 1024 points per input frame and read with linear interpolation (table error
/// below −118 dB). When the output is slower than the input (`step` > 1 input frames per
/// output frame) the kernel is widened by `step` — its cutoff follows the output's Nyquist —
/// as in J. O. Smith's bandlimited interpolation ("Digital Audio Resampling Home Page",
/// CCRMA, §"Implementation"), which libsamplerate also follows. Each output frame's weights
/// are computed once and applied to every channel with the dispatched dot product.
///
/// The step moves to a new target linearly over ``smoothingFrames`` output frames, so a
/// change or a sweep never jumps (no click). Output frame n sits at input position tₙ, and
/// tₙ₊₁ = tₙ + stepₙ.
public struct VariableResampler: ~Copyable {
    public let channelCount: Int
    public let maximumOutputFrames: Int
    /// Largest step (input frames per output frame) the buffers were sized for.
    public let maximumStep: Double
    /// Output frames over which a new step is reached.
    public let smoothingFrames: Int
    /// Kernel half-width in input frames at step ≤ 1 (the lookahead past the position).
    public var halfWidth: Int { Self.zeroCrossings }

    static let attenuationDB = 120.0
    static let passbandFraction = 0.85
    static let tablePointsPerFrame = 1024
    /// Half-width of the kernel, in input frames at step ≤ 1: half of Kaiser's length for 120 dB
    /// over a transition of 0.075 cycles per frame, (106 + 1) / 2 (a literal: no lazy global on
    /// the audio thread; a test checks it against the formula).
    public static let zeroCrossings = 53

    @usableFromInline let table: UnsafeMutablePointer<Double>   // g(u / 1024), u = 0 … zeroCrossings·1024 + 1
    @usableFromInline let weights: UnsafeMutablePointer<Double>
    @usableFromInline let history: UnsafeMutablePointer<Double>
    @usableFromInline let capacity: Int
    /// [0] absolute index of history[0], [1] frames held, [2] integer part of the position.
    @usableFromInline let cursor: UnsafeMutablePointer<Int>
    /// [0] fractional part of the position, [1] current step, [2] target step, [3] step change per frame.
    @usableFromInline let stepState: UnsafeMutablePointer<Double>

    /// `step`: input frames per output frame at the start (2 plays twice as fast).
    public init(channelCount: Int, step: Double, maximumStep: Double = 4, maximumOutputFrames: Int, smoothingFrames: Int = 1024) {
        precondition(channelCount >= 1 && maximumOutputFrames >= 1 && step > 0 && step <= maximumStep)
        self.channelCount = channelCount
        self.maximumOutputFrames = maximumOutputFrames
        self.maximumStep = maximumStep
        self.smoothingFrames = max(1, smoothingFrames)
        let z = Self.zeroCrossings, points = Self.tablePointsPerFrame
        let cutoff = (Self.passbandFraction + 1) / 4  // cycles per input frame, midway in the transition
        let beta = KaiserWindow.beta(attenuationDB: Self.attenuationDB)
        table = .allocate(capacity: z * points + 2)
        for u in 0..<(z * points + 2) {
            let t = Double(u) / Double(points)
            let x = 2 * cutoff * t
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            table[u] = 2 * cutoff * sinc * KaiserWindow.value(at: t, halfWidth: Double(z), beta: beta)
        }
        // Zero at and past the last crossing, so `process` clamps instead of branching.
        table[z * points] = 0; table[z * points + 1] = 0
        let maximumTaps = (2 * Int((Double(z) * maximumStep).rounded(.up)) + 2 + 7) / 8 * 8
        weights = .allocate(capacity: maximumTaps)
        let maximumInput = Int((Double(maximumOutputFrames) * maximumStep).rounded(.up)) + 2
        capacity = maximumTaps + maximumInput + 8
        history = .allocate(capacity: channelCount * capacity)
        cursor = .allocate(capacity: 3)
        stepState = .allocate(capacity: 4)
        reset(step: step)
    }

    deinit { table.deallocate(); weights.deallocate(); history.deallocate(); cursor.deallocate(); stepState.deallocate() }

    /// Back to the start of a stream at `step`: silence before input frame 0, output 0 at input 0.
    public func reset(step: Double) {
        history.update(repeating: 0, count: channelCount * capacity)
        let reach = Int((Double(Self.zeroCrossings) * maximumStep).rounded(.up)) + 1
        cursor[0] = -reach
        cursor[1] = reach
        cursor[2] = 0
        stepState[0] = 0; stepState[1] = step; stepState[2] = step; stepState[3] = 0
    }

    /// Sets NaN and infinity in the input history to zero (after non-finite input); real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool { NonFiniteScan.zero(history, count: channelCount * capacity) }

    /// Back to the start of a stream at the step it is heading for.
    public func reset() { reset(step: stepState[2]) }

    /// The step now (it may be moving toward a new target).
    public var step: Double { stepState[1] }

    /// Moves the step to `target` over ``smoothingFrames`` output frames (clamped to 1/64…`maximumStep`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func setStep(_ target: Double) {
        let t = Swift.min(maximumStep, Swift.max(1.0 / 64, target))
        stepState[2] = t
        stepState[3] = (t - stepState[1]) / Double(smoothingFrames)
    }

    /// Sets the step at once, from the next output frame's move on (no smoothing): for callers
    /// that schedule the step exactly themselves (``PitchShifter``).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func jumpStep(to step: Double) {
        let t = Swift.min(maximumStep, Swift.max(1.0 / 64, step))
        stepState[1] = t; stepState[2] = t; stepState[3] = 0
    }

    /// Input frames `process` needs with the next `outputFrames` output frames.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        guard outputFrames > 0 else { return 0 }
        var position = Double(cursor[2]) + stepState[0]
        var step = stepState[1], maxStep = step
        let target = stepState[2], delta = stepState[3]
        for _ in 0..<(outputFrames - 1) {
            position += step
            step = Self.advance(step, target: target, delta: delta)
            maxStep = Swift.max(maxStep, step)
        }
        let reach = Self.reach(step: maxStep)
        let last = Int(position) + reach  // positions are ≥ 0
        return Swift.max(0, last + 1 - (cursor[0] + cursor[1]))
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    static func advance(_ step: Double, target: Double, delta: Double) -> Double {
        let next = step + delta
        return (delta > 0 && next > target) || (delta < 0 && next < target) || delta == 0 ? target : next
    }

    /// Input frames each side of the position the kernel reaches at `step`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    static func reach(step: Double) -> Int { Int(Double(zeroCrossings) * Swift.max(1, step)) + 1 }

    /// Appends `inputFrames` frames (at least ``inputFramesNeeded(forOutputFrames:)``, within the
    /// capacity) and writes `outputFrames` frames.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(input: UnsafePointer<UnsafePointer<Float>>, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) {
        precondition(outputFrames <= maximumOutputFrames && cursor[1] + inputFrames <= capacity,
                     "VariableResampler.process: more frames than it was built for")
        let held = cursor[1]
        appendHistory(input, frames: inputFrames, to: history, stride: capacity, held: held, channelCount: channelCount)
        let start = cursor[0]
        var whole = cursor[2]
        var fraction = stepState[0], step = stepState[1]
        let target = stepState[2], delta = stepState[3]
        let points = Double(Self.tablePointsPerFrame)
        for n in 0..<outputFrames {
            // Kernel scale: 1 when upsampling, 1/step when the output is slower (cutoff follows).
            let scale = step > 1 ? 1 / step : 1
            let reach = Self.reach(step: step)
            let first = whole - reach + 1  // absolute index of the first tap
            let taps = (2 * reach + 7) / 8 * 8
            // Weight of input frame first + k: scale · g(scale · (t − (first + k))).
            var u = (fraction + Double(reach - 1)) * scale * points  // table index for k = 0
            let du = scale * points
            let limit = Double(Self.zeroCrossings * Self.tablePointsPerFrame)
            for k in 0..<taps {
                let a = Swift.min(Swift.abs(u), limit)  // past the kernel: the table's zeros
                let i = Int(a)
                let f = a - Double(i)
                weights[k] = scale * (table[i] + f * (table[i + 1] - table[i]))
                u -= du
            }
            let offset = first - start
            convolveChannels(UnsafePointer(weights), taps: taps, history: history, stride: capacity, offset: offset,
                             channelCount: channelCount, output: output, frame: n)
            fraction += step
            let carry = Int(fraction)
            whole += carry
            fraction -= Double(carry)
            step = Self.advance(step, target: target, delta: delta)
        }
        // Keep what the next output can still reach (at the largest step).
        let total = held + inputFrames
        let keepFrom = Swift.min(total, Swift.max(0, whole - Self.reach(step: maximumStep) + 1 - start))
        dropHistory(keepFrom, of: total, in: history, stride: capacity, channelCount: channelCount)
        cursor[0] = start + keepFrom
        cursor[1] = total - keepFrom
        cursor[2] = whole
        stepState[0] = fraction; stepState[1] = step
    }
}

extension VariableResampler: AudioKernel {
    /// A converter starting at `step` input frames per output frame (up to 4) for `format`'s
    /// channels, at most `format.maximumBlockFrames` output frames a call.
    public init?(_ step: Double, format: KernelFormat) {
        guard step > 0 && step <= 4 else { return nil }
        self.init(channelCount: format.channelCount, step: step, maximumOutputFrames: format.maximumBlockFrames)
    }
}
