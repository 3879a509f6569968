import CTimbreSupport
import Foundation

/// A waveshaper run at `factor` times the rate so that the harmonics it makes above the
/// Nyquist limit are filtered away instead of folding back as aliases (Välimäki et al.,
/// "Oversampling for nonlinear waveshaping", 2016): each channel upsampled by a polyphase
/// Kaiser-windowed sinc (Timbre's resampler's low-pass, `WindowedSincLowpass`, 100 dB, pass
/// band to 0.4 of the rate), multiplied by the drive, shaped by a ``WaveshaperCurve``,
/// low-passed by the same design and decimated; then a DC blocker (one pole at 5 Hz), the
/// output gain and the mix with the dry input (delayed as the wet path is).
///
/// Both filters are linear phase and causal: the node is ``latencyFrames`` late (the two
/// filters' half lengths, in whole frames), reported to the graph and to JACK. Per frame at
/// absolute positions: the same output for every block size. A factor of 1 shapes at the
/// rate, without latency (aliasing as any plain waveshaper).
public struct OversampledWaveshaper: ~Copyable, @unchecked Sendable {
    public struct Values: Sendable, Equatable {
        /// Linear factors.
        public var drive: Double
        public var output: Double
        public var mix: Double
        public init(drive: Double, output: Double, mix: Double) { self.drive = drive; self.output = output; self.mix = mix }
    }

    public let channelCount: Int
    public let factor: Int
    public let curve: WaveshaperCurve
    /// Frames the output is late.
    public let latencyFrames: Int
    /// Base frames each side the filters reach (a Kaiser half width, rounded up).
    let reach: Int
    /// Up filter: `factor` phases × `upTaps` Doubles (padded to a multiple of 8); phase p for
    /// the instant p/factor after a base frame, over the last `upTaps` base frames, newest last.
    let up: UnsafeMutablePointer<Double>
    let upTaps: Int
    /// Down filter: `downTaps` Doubles over the last `downTaps` oversampled values, newest last.
    let down: UnsafeMutablePointer<Double>
    let downTaps: Int
    /// Per channel: base input ring (mirrored, `2 × baseCapacity`), shaped oversampled ring
    /// (mirrored, `2 × shapedCapacity`), dry delay ring (`dryCapacity`), DC blocker state.
    let base: UnsafeMutablePointer<Double>
    let baseCapacity: Int
    let shaped: UnsafeMutablePointer<Double>
    let shapedCapacity: Int
    let dry: UnsafeMutablePointer<Float>
    let dryCapacity: Int
    let blocker: UnsafeMutablePointer<Double>
    let blockerPole: Double
    let state: UnsafeMutablePointer<State>
    let rampFrames: Int

    struct State {
        var position = 0
        var drive: LinearRamp
        var output: LinearRamp
        var wet: LinearRamp
        var dryGain: LinearRamp
    }

    /// The latency of a waveshaper oversampled `factor` times (0 at 1).
    public static func latency(factor: Int) -> Int {
        factor <= 1 ? 0 : 2 * WindowedSincLowpass(ratio: RationalRatio(factor, 1), quality: .fast).reach
    }

    public init(values: Values, curve: WaveshaperCurve, factor: Int, sampleRate: Double, channelCount: Int) {
        precondition(factor >= 1 && channelCount >= 1)
        self.channelCount = channelCount; self.factor = factor; self.curve = curve
        let lowpass = WindowedSincLowpass(ratio: RationalRatio(factor, 1), quality: .fast)
        reach = factor == 1 ? 0 : lowpass.reach
        latencyFrames = 2 * reach
        // Up: y(n + p/L) = Σ_j x[n − j] · g(p/L + j − reach), j = 0 … 2·reach; each phase to unity DC gain.
        let j = 2 * reach + 1
        upTaps = (j + 7) / 8 * 8
        up = .allocate(capacity: factor * upTaps)
        up.initialize(repeating: 0, count: factor * upTaps)
        for p in 0..<factor {
            var sum = 0.0
            for k in 0..<j {
                // Stored oldest first: tap index upTaps − 1 − k holds x[n − k].
                let v = factor == 1 ? (k == 0 ? 1 : 0) : lowpass.value(at: Double(p) / Double(factor) + Double(k) - Double(reach))
                up[p * upTaps + upTaps - 1 - k] = v
                sum += v
            }
            for k in 0..<upTaps { up[p * upTaps + k] /= sum }
        }
        // Down: z(n) = Σ_i u[nL − i] · g(i/L − reach), i = 0 … 2·reach·L; unity DC gain.
        let i = 2 * reach * factor + 1
        downTaps = (i + 7) / 8 * 8
        down = .allocate(capacity: downTaps)
        down.initialize(repeating: 0, count: downTaps)
        var sum = 0.0
        for k in 0..<i {
            let v = factor == 1 ? (k == 0 ? 1 : 0) : lowpass.value(at: Double(k) / Double(factor) - Double(reach))
            down[downTaps - 1 - k] = v
            sum += v
        }
        for k in 0..<downTaps { down[k] /= sum }
        baseCapacity = max(upTaps, 8)
        shapedCapacity = downTaps + factor  // the window and the frame's later instants
        base = .allocate(capacity: channelCount * 2 * baseCapacity)
        base.initialize(repeating: 0, count: channelCount * 2 * baseCapacity)
        shaped = .allocate(capacity: channelCount * 2 * shapedCapacity)
        shaped.initialize(repeating: 0, count: channelCount * 2 * shapedCapacity)
        dryCapacity = latencyFrames + 1
        dry = .allocate(capacity: channelCount * dryCapacity)
        dry.initialize(repeating: 0, count: channelCount * dryCapacity)
        blocker = .allocate(capacity: 2 * channelCount)
        blocker.initialize(repeating: 0, count: 2 * channelCount)
        blockerPole = exp(-2 * Double.pi * 5 / sampleRate)
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        state = .allocate(capacity: 1)
        state.initialize(to: State(drive: LinearRamp(value: Float(values.drive)), output: LinearRamp(value: Float(values.output)),
                                   wet: LinearRamp(value: Float(values.mix)), dryGain: LinearRamp(value: Float(1 - values.mix))))
    }

    deinit {
        up.deallocate(); down.deallocate(); base.deallocate(); shaped.deallocate(); dry.deallocate(); blocker.deallocate(); state.deallocate()
    }

    /// Moves to new values (audio thread, at a block's start).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values) {
        state.pointee.drive.setTarget(Float(v.drive), frames: rampFrames)
        state.pointee.output.setTarget(Float(v.output), frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dryGain.setTarget(Float(1 - v.mix), frames: rampFrames)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var s = state.pointee
        let start = s.position, l = factor, up = up, upTaps = upTaps, down = down, downTaps = downTaps
        for c in 0..<channelCount {
            let x = channels[c], ring = base + c * 2 * baseCapacity, out = shaped + c * 2 * shapedCapacity
            let delay = dry + c * dryCapacity, z = blocker + 2 * c
            for i in 0..<frameCount {
                let t = start + i
                let input = x[i]
                let drive = Double(s.drive.value(at: i))
                let w: Double
                if l == 1 {
                    w = curve.value(drive * Double(input))  // at the rate: no filters, no latency
                } else {
                    // The base ring, newest last: frames t − upTaps + 1 … t at [b − upTaps + 1 … b].
                    let b = t % baseCapacity
                    ring[b] = Double(input); ring[b + baseCapacity] = Double(input)
                    let window = ring + (b + baseCapacity - upTaps + 1)
                    for p in 0..<l {
                        let taps = up + p * upTaps
                        let v = _unsafePerformance { timbre_dot_f64(taps, window, upTaps) }
                        let u = (t * l + p) % shapedCapacity
                        let y = curve.value(drive * v)
                        out[u] = y; out[u + shapedCapacity] = y
                    }
                    // Down at instant t·L (this frame's p = 0): the window ends there.
                    let last = (t * l) % shapedCapacity
                    let span = out + (last + shapedCapacity - downTaps + 1)
                    w = _unsafePerformance { timbre_dot_f64(down, span, downTaps) }
                }
                // DC blocker: y = w − w₁ + R·y₁.
                let blocked = w - z[0] + blockerPole * z[1]
                z[0] = w; z[1] = blocked
                let d = t % dryCapacity
                let late = delay[(t - latencyFrames + dryCapacity) % dryCapacity]
                delay[d] = input
                x[i] = s.dryGain.value(at: i) * (latencyFrames == 0 ? input : late) + s.wet.value(at: i) * s.output.value(at: i) * Float(blocked)
            }
        }
        s.position = start + frameCount
        s.drive.advance(by: frameCount); s.output.advance(by: frameCount); s.wet.advance(by: frameCount); s.dryGain.advance(by: frameCount)
        state.pointee = s
    }
}

extension OversampledWaveshaper {
    /// Silence before.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        base.update(repeating: 0, count: channelCount * 2 * baseCapacity)
        shaped.update(repeating: 0, count: channelCount * 2 * shapedCapacity)
        dry.update(repeating: 0, count: channelCount * dryCapacity)
        blocker.update(repeating: 0, count: 2 * channelCount)
        state.pointee.position = 0
    }

    /// Takes over `previous`'s filter histories (the same factor and channels), then ramps to
    /// this kernel's values.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing OversampledWaveshaper) {
        guard previous.channelCount == channelCount, previous.factor == factor, previous.upTaps == upTaps, previous.downTaps == downTaps else { return }
        for k in 0..<(channelCount * 2 * baseCapacity) { base[k] = previous.base[k] }
        for k in 0..<(channelCount * 2 * shapedCapacity) { shaped[k] = previous.shaped[k] }
        for k in 0..<(channelCount * dryCapacity) { dry[k] = previous.dry[k] }
        for k in 0..<(2 * channelCount) { blocker[k] = previous.blocker[k] }
        let values = Values(drive: Double(state.pointee.drive.target), output: Double(state.pointee.output.target), mix: Double(state.pointee.wet.target))
        state.pointee = previous.state.pointee
        retune(values)
    }

    /// Clears the histories if NaN or infinity reached them; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = NonFiniteScan.contains(dry, count: channelCount * dryCapacity)
        for k in 0..<(channelCount * 2 * baseCapacity) where !base[k].isFinite { bad = true }
        for k in 0..<(channelCount * 2 * shapedCapacity) where !shaped[k].isFinite { bad = true }
        for k in 0..<(2 * channelCount) where !blocker[k].isFinite { bad = true }
        guard bad else { return false }
        reset()
        return true
    }
}
