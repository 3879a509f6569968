import Foundation

/// A feed-forward compressor: detector, static curve (``CompressorCurve``), gain smoothing,
/// optional lookahead and key filter. Planar audio in place; `process` allocates nothing and
/// takes no lock.
///
/// Per frame: the key (the input, or the input through ``Settings/keyFilter``: a de-esser keys
/// on 4–10 kHz) gives each channel a level — its absolute value (peak detector) or the square
/// root of its mean square over an exponential window (RMS detector) — in dB. Stereo link
/// mixes each channel's level with the loudest channel's (`link` 1: one gain for all). The
/// curve gives the target gain in dB, which is smoothed by a one-pole filter in dB, with the
/// attack time constant while reduction grows and the release one while it shrinks: after a
/// step, the gain covers 1 − 1/e of its change in dB after one time constant
/// (α = exp(−1 / (τ·fs)), Giannoulis et al. 2012 §3.1, "smooth decoupled" detector in the log
/// domain). The audio is delayed by the lookahead (reported as latency), so the gain starts
/// moving before a transient arrives.
public struct Compressor: ~Copyable, @unchecked Sendable {
    public enum Detector: Sendable, Equatable {
        case peak
        /// RMS over an exponential window of this many seconds (its time constant).
        case rms(windowSeconds: Double)
    }

    public struct Settings: Sendable, Equatable {
        public var curve: CompressorCurve
        public var attackSeconds: Double
        public var releaseSeconds: Double
        /// Gain after compression, dB; nil: automatic (the gain the curve takes from a 0 dBFS
        /// level, given back, so a full-scale signal stays at full scale).
        public var makeupDB: Double?
        public var detector: Detector
        /// 0…1: 0 each channel its own gain, 1 one gain from the loudest channel.
        public var link: Double
        public var lookaheadSeconds: Double
        /// Sections run on a copy of the key that only the detector hears (none: the key as it is).
        public var keyFilter: [BiquadCoefficients]
        /// Channels of an external key (another signal the host passes to
        /// ``Compressor/process(_:key:frameCount:)``: a voice that ducks music); nil: the input
        /// is its own key.
        public var externalKeyChannels: Int?

        public init(curve: CompressorCurve, attackSeconds: Double = 0.01, releaseSeconds: Double = 0.1, makeupDB: Double? = 0,
                    detector: Detector = .peak, link: Double = 1, lookaheadSeconds: Double = 0, keyFilter: [BiquadCoefficients] = []) {
            self.curve = curve; self.attackSeconds = attackSeconds; self.releaseSeconds = releaseSeconds; self.makeupDB = makeupDB
            self.detector = detector; self.link = link; self.lookaheadSeconds = lookaheadSeconds; self.keyFilter = keyFilter
        }

        /// Channels the detector hears: the external key's, or the input's.
        public func keyChannelCount(input channels: Int) -> Int { externalKeyChannels ?? channels }

        /// The makeup gain applied, dB.
        public var effectiveMakeupDB: Double { makeupDB ?? curve.automaticMakeupDB }
    }

    public let settings: Settings
    public let channelCount: Int
    public let maximumBlockFrames: Int
    /// Frames the audio is delayed by (the lookahead).
    public let latencyFrames: Int
    var attack: Double, release: Double, makeup: Double
    let rmsCoefficient: Double
    // The settings the render loop reads (`settings` holds an array: reading it retains).
    var curve: CompressorCurve, link: Double
    let isRMS: Bool
    /// Channels the detector hears (the external key's, or the input's).
    let keyCount: Int
    /// The smoothed gain in dB per channel, then the detector's mean square per key channel.
    let state: UnsafeMutablePointer<Double>
    /// `maximumBlockFrames` per key channel (the key's copy, then its level in dB), then per
    /// channel (the gains).
    let scratch: UnsafeMutablePointer<Float>
    let keyPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let keyCascade: BiquadCascade?
    let delay: DelayLine?

    public init(settings: Settings, sampleRate: Double, channelCount: Int, maximumBlockFrames: Int) {
        precondition(channelCount >= 1 && maximumBlockFrames >= 1)
        self.settings = settings; self.channelCount = channelCount; self.maximumBlockFrames = maximumBlockFrames
        attack = Self.coefficient(settings.attackSeconds, sampleRate)
        release = Self.coefficient(settings.releaseSeconds, sampleRate)
        if case .rms(let w) = settings.detector { rmsCoefficient = Self.coefficient(w, sampleRate) } else { rmsCoefficient = 0 }
        makeup = settings.effectiveMakeupDB
        curve = settings.curve; link = settings.link; isRMS = settings.detector != .peak
        latencyFrames = Int((settings.lookaheadSeconds * sampleRate).rounded())
        keyCount = settings.keyChannelCount(input: channelCount)
        state = .allocate(capacity: channelCount + keyCount)
        state.initialize(repeating: 0, count: channelCount + keyCount)
        scratch = .allocate(capacity: (keyCount + channelCount) * maximumBlockFrames)
        scratch.initialize(repeating: 0, count: (keyCount + channelCount) * maximumBlockFrames)
        keyPointers = .allocate(capacity: keyCount)
        for c in 0..<keyCount { keyPointers[c] = scratch + c * maximumBlockFrames }
        keyCascade = settings.keyFilter.isEmpty ? nil : BiquadCascade(sections: settings.keyFilter, channelCount: keyCount)
        delay = latencyFrames > 0 ? DelayLine(frames: latencyFrames, channelCount: channelCount) : nil
    }

    /// The one-pole coefficient of time constant `seconds` (0: no smoothing).
    public static func coefficient(_ seconds: Double, _ rate: Double) -> Double { seconds > 0 ? exp(-1 / (seconds * rate)) : 0 }

    /// Frees the state and scratch (the key filter and delay free themselves).
    deinit { state.deallocate(); scratch.deallocate(); keyPointers.deallocate() }

    /// Continues `previous`'s smoothed gains, detector and lookahead (a plan swap).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing Compressor) {
        for c in 0..<min(channelCount, previous.channelCount) { state[c] = previous.state[c] }
        for k in 0..<min(keyCount, previous.keyCount) { state[channelCount + k] = previous.state[previous.channelCount + k] }
        switch previous.delay {
        case .some(let old): delay?.continueState(from: old)
        case .none: break
        }
        switch previous.keyCascade {
        case .some(let old) where old.channelCount == keyCount: keyCascade?.continueState(from: old)
        default: break
        }
    }

    /// New curve, makeup (nil: automatic), smoothing coefficients (``coefficient(_:_:)`` of
    /// the attack and release times, worked out by the caller off the audio thread) and link for
    /// the running compressor (a live edit): the smoothed gain goes on from where it is and
    /// follows the new curve with the new time constants, so the change is as smooth as any
    /// level change. Real-time safe: stores and arithmetic only.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func retune(curve: CompressorCurve, makeupDB: Double?, attackCoefficient: Double, releaseCoefficient: Double, link: Double) {
        self.curve = curve
        makeup = makeupDB ?? curve.automaticMakeupDB
        attack = attackCoefficient
        release = releaseCoefficient
        self.link = link
    }

    /// Back to silence.
    public func reset() {
        state.update(repeating: 0, count: channelCount + keyCount)
        keyCascade?.reset(); delay?.reset()
    }

    /// Sets NaN and infinity in the memory to zero. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let gains = NonFiniteScan.zero(state, count: channelCount + keyCount)
        let key = keyCascade?.clearNonFinite() ?? false
        return (delay?.clearNonFinite() ?? false) || gains || key
    }

    /// Compresses `frameCount` (≤ `maximumBlockFrames`) frames of `channels` in place, keyed
    /// on themselves.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        process(channels, key: nil, frameCount: frameCount)
    }

    /// Compresses `frameCount` frames of `channels` in place, keyed on `key` (its
    /// ``Settings/externalKeyChannels`` channels; nil: the channels themselves). With an
    /// external key, channel c follows key channel min(c, keys − 1), linked as set.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, key external: UnsafePointer<UnsafeMutablePointer<Float>>?,
                        frameCount: Int) {
        let source = external ?? channels
        let key: UnsafePointer<UnsafeMutablePointer<Float>>
        if keyCascade != nil || external != nil {
            // A copy: the filter must not touch the audio, and another bus's key must not be changed.
            for k in 0..<keyCount { let s = source[k], d = keyPointers[k]; for i in 0..<frameCount { d[i] = s[i] } }
            keyCascade?.process(keyPointers, frameCount: frameCount)
            key = UnsafePointer(keyPointers)
        } else {
            key = channels
        }
        let gains = scratch + keyCount * maximumBlockFrames, stride = maximumBlockFrames
        let curve = curve, link = link, rms = rmsCoefficient, isRMS = isRMS, makeup = makeup, attack = attack, release = release
        let keyCount = keyCount, channelCount = channelCount
        // 1. Each key channel's level in dB, into its scratch row (eight lanes at a time; the
        //    RMS detector's mean square is a recurrence, run first).
        for k in 0..<keyCount {
            let x = key[k], row = keyPointers[k]
            if isRMS {
                var ms = state[channelCount + k]
                for i in 0..<frameCount { let v = Double(x[i]); ms = rms * ms + (1 - rms) * v * v; row[i] = Float(ms) }
                state[channelCount + k] = ms
                FastLogExp.decibels(row, into: row, count: frameCount, scale: 3.010299956639812, floor: 1e-30)  // 10·log₁₀
            } else {
                FastLogExp.decibels(x, into: row, count: frameCount, scale: 6.020599913279624, floor: 1e-15)  // 20·log₁₀
            }
        }
        // 2. The gain computer and its smoothing, frame by frame (a recurrence), as log₂ of the gain.
        for i in 0..<frameCount {
            var loudest: Float = -400
            for k in 0..<keyCount { loudest = max(loudest, keyPointers[k][i]) }
            for c in 0..<channelCount {
                let own = Double(keyPointers[min(c, keyCount - 1)][i])
                let target = curve.gainDB(link * Double(loudest) + (1 - link) * own)
                let current = state[c]
                let a = target < current ? attack : release
                let g = a * current + (1 - a) * target
                state[c] = g
                gains[c * stride + i] = Float((g + makeup) * 0.16609640474436813)  // 10^(dB/20) = 2^(dB · log₂ 10 / 20)
            }
        }
        // 3. 2^ of those, eight lanes at a time.
        for c in 0..<channelCount { FastLogExp.exponentiate(gains + c * stride, count: frameCount) }
        delay?.process(channels, frameCount: frameCount)
        for c in 0..<channelCount {
            let p = channels[c], g = gains + c * maximumBlockFrames
            for i in 0..<frameCount { p[i] *= g[i] }
        }
    }

    /// The deepest reduction of the last `process` call (its `frameCount` frames, every
    /// channel) as a gain in dB, makeup not counted (≤ 0).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func lowestGainDB(frameCount: Int) -> Double {
        guard frameCount > 0 else { return 0 }
        return min(0, GainRows.lowestDB(scratch + keyCount * maximumBlockFrames, rows: channelCount, stride: maximumBlockFrames, frameCount: frameCount) - makeup)
    }
}

extension Compressor: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A compressor with `settings` for `format`.
    public init?(_ settings: Settings, format: KernelFormat) {
        self.init(settings: settings, sampleRate: format.sampleRate, channelCount: format.channelCount, maximumBlockFrames: format.maximumBlockFrames)
    }
}
