import Foundation

/// The Moog ladder: four one-pole low-passes in series with the last one's output fed back
/// inverted, solved without a unit delay in the loop (the zero-delay-feedback,
/// topology-preserving transform: Zavalishin, *The Art of VA Filter Design*, 2.1, ch. 3 and
/// 5), the feedback path's sum through tanh (drive) so the resonance self-oscillates at a
/// bounded level from resonance 1 (k = 4) up.
///
/// Each stage (TPT one-pole, g = tan(π f / rate), G = g / (1 + g)): v = (x − s)·G, y = v + s,
/// s = y + v. The ladder's input u = tanh(d · (x − k·S) / (1 + k·G⁴)) / d with S the stages'
/// stored contribution Σ G^(3−i) s_i / (1 + g); small signals see the linear ladder exactly
/// (the bilinear image of H(s) = 1 / ((1 + s/ω)⁴ + k), prewarped at the cutoff), so its
/// response is the analog one at tan-mapped frequencies (`LadderFilterTests`). Modes mix the
/// stages (Oberheim Xpander's multimode): low-pass y₄ (24 dB) or y₂ (12), high-pass
/// u − 4y₁ + 6y₂ − 4y₃ + y₄ or u − 2y₁ + y₂, band-pass 4(y₂ − 2y₃ + y₄) or 2(y₁ − y₂).
///
/// A cutoff change glides in log frequency over 25 ms (g worked out per frame while it
/// glides), resonance and drive ramp: no zipper. Per frame: the same output for every block size.
/// Channels run two at a time in SIMD lanes (the same operations per lane as one alone).
public struct LadderFilter: ~Copyable, @unchecked Sendable {
    public enum Mode: String, Sendable, CaseIterable, Codable { case lowpass, highpass, bandpass }

    public struct Values: Sendable, Equatable {
        public var cutoffHz: Double
        /// 0…1.2: k = 4 × resonance (self-oscillation from 1).
        public var resonance: Double
        /// The drive into the saturation, linear (1: unity).
        public var drive: Double
        public init(cutoffHz: Double, resonance: Double, drive: Double) { self.cutoffHz = cutoffHz; self.resonance = resonance; self.drive = drive }
    }

    public let channelCount: Int
    public let mode: Mode
    /// 12 or 24.
    public let slope: Int
    public let sampleRate: Double
    /// Per channel: the four stages' states.
    let stages: UnsafeMutablePointer<Double>
    /// The second lane's stages when a channel runs alone (its output is not kept).
    let spare: UnsafeMutablePointer<Double>
    let state: UnsafeMutablePointer<State>
    let rampFrames: Int

    struct State {
        /// log2 of the cutoff, ramped.
        var octave: LinearRamp
        var resonance: LinearRamp
        var drive: LinearRamp
    }

    public init(values: Values, mode: Mode, slope: Int, sampleRate: Double, channelCount: Int) {
        precondition(slope == 12 || slope == 24)
        self.channelCount = channelCount; self.mode = mode; self.slope = slope; self.sampleRate = sampleRate
        stages = .allocate(capacity: 4 * channelCount)
        stages.initialize(repeating: 0, count: 4 * channelCount)
        spare = .allocate(capacity: 4)
        spare.initialize(repeating: 0, count: 4)
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        state = .allocate(capacity: 1)
        state.initialize(to: State(octave: LinearRamp(value: Float(log2(values.cutoffHz))), resonance: LinearRamp(value: Float(values.resonance)),
                                   drive: LinearRamp(value: Float(values.drive))))
    }

    deinit { stages.deallocate(); spare.deallocate(); state.deallocate() }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values) {
        let octave = _unsafePerformance { log2(v.cutoffHz) }
        state.pointee.octave.setTarget(Float(octave), frames: rampFrames)
        state.pointee.resonance.setTarget(Float(v.resonance), frames: rampFrames)
        state.pointee.drive.setTarget(Float(v.drive), frames: rampFrames)
    }

    /// tan(π f / rate) for a cutoff of 2^octave Hz, kept below 0.49 of the rate.
    @inline(__always)
    func prewarped(_ octave: Float) -> Double {
        let o = Double(octave)
        let hz = min(_unsafePerformance { exp2(o) }, 0.49 * sampleRate), w = Double.pi * hz / sampleRate
        return _unsafePerformance { tan(w) }
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let start = state.pointee
        var c = 0
        while c < channelCount {
            let pair = c + 1 < channelCount
            processLanes(channels[c], pair ? channels[c + 1] : channels[c], writesSecond: pair,
                         stages + 4 * c, pair ? stages + 4 * (c + 1) : spare, start, frameCount)
            c += 2
        }
        var s = start
        s.octave.advance(by: frameCount); s.resonance.advance(by: frameCount); s.drive.advance(by: frameCount)
        state.pointee = s
    }

    /// Two channels side by side (lane 0: `first`, lane 1: `second`, written back only when
    /// `writesSecond`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func processLanes(_ first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>, writesSecond: Bool,
                      _ s0: UnsafeMutablePointer<Double>, _ s1: UnsafeMutablePointer<Double>, _ start: State, _ frameCount: Int) {
        var z0 = SIMD2(s0[0], s1[0]), z1 = SIMD2(s0[1], s1[1]), z2 = SIMD2(s0[2], s1[2]), z3 = SIMD2(s0[3], s1[3])
        let steady = !start.octave.isRamping
        let fixedG = prewarped(start.octave.target)
        for i in 0..<frameCount {
            let g = steady ? fixedG : prewarped(start.octave.value(at: i))
            let k = 4 * Double(start.resonance.value(at: i)), d = Double(start.drive.value(at: i))
            let a = g / (1 + g), b = 1 / (1 + g)
            // Off the loop's chain: what depends on the settings alone (the divisions).
            let a4 = a * a * a * a, solve = d / (1 + k * a4), undrive = 1 / d
            // The stages' stored contribution to y₄, and the loop solved for u.
            let sum = ((a * z0 * b + z1 * b) * a + z2 * b) * a + z3 * b
            let input = SIMD2(Double(first[i]), Double(second[i]))
            let u = WaveshaperCurve.tanhApproximation((input - k * sum) * solve) * undrive
            var v = (u - z0) * a; let y1 = v + z0; z0 = y1 + v
            v = (y1 - z1) * a; let y2 = v + z1; z1 = y2 + v
            v = (y2 - z2) * a; let y3 = v + z2; z2 = y3 + v
            v = (y3 - z3) * a; let y4 = v + z3; z3 = y4 + v
            let out: SIMD2<Double>
            switch (mode, slope) {
            case (.lowpass, 24): out = y4
            case (.lowpass, _): out = y2
            case (.highpass, 24): out = u - 4 * y1 + 6 * y2 - 4 * y3 + y4
            case (.highpass, _): out = u - 2 * y1 + y2
            case (.bandpass, 24): out = 4 * (y2 - 2 * y3 + y4)
            case (.bandpass, _): out = 2 * (y1 - y2)
            }
            first[i] = Float(out[0])
            if writesSecond { second[i] = Float(out[1]) }
        }
        s0[0] = z0[0]; s0[1] = z1[0]; s0[2] = z2[0]; s0[3] = z3[0]
        s1[0] = z0[1]; s1[1] = z1[1]; s1[2] = z2[1]; s1[3] = z3[1]
    }
}

extension LadderFilter {
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() { stages.update(repeating: 0, count: 4 * channelCount) }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing LadderFilter) {
        guard previous.channelCount == channelCount else { return }
        for k in 0..<(4 * channelCount) { stages[k] = previous.stages[k] }
        let target = state.pointee
        state.pointee = previous.state.pointee
        state.pointee.octave.setTarget(target.octave.target, frames: rampFrames)
        state.pointee.resonance.setTarget(target.resonance.target, frames: rampFrames)
        state.pointee.drive.setTarget(target.drive.target, frames: rampFrames)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for k in 0..<(4 * channelCount) where !stages[k].isFinite { bad = true }
        if bad { reset() }
        return bad
    }
}
