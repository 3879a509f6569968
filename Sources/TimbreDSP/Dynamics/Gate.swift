import Foundation

/// A downward expander and noise gate: below the threshold the level is pushed further down
/// by the ratio (a gate is ratio ∞), never by more than the range; hysteresis, hold, attack
/// and release keep it from chattering. Planar audio in place; `process` allocates nothing
/// and takes no lock.
///
/// Per frame the detector takes each channel's peak level |x| in dB (stereo link mixes it with
/// the loudest channel's, as ``Compressor`` does). The gate is open at or above the threshold T
/// and closes only below T − H (H: hysteresis), so a level wandering around T does not
/// chatter. The static gain (Giannoulis, Massberg and Reiss 2012 give the compressor's; this
/// is its mirror below the threshold, as in Zölzer, "DAFX", 2nd ed., §4.2.2):
///
/// ```
/// g = 0                                open
/// g = max(−range, (x − T′)(R − 1))     closed, T′ = T − H while it was open, else T (R = ∞: −range)
/// ```
/// After the gate closes the gain stays where it is for `hold` seconds, then falls with the
/// release time constant; it rises with the attack one (both one-pole in dB: 1 − 1/e of a
/// step after one constant, as the compressor's).
public struct Gate: ~Copyable, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        public var thresholdDB: Double
        /// 1…∞: 1 does nothing, ∞ is a gate.
        public var ratio: Double
        /// The deepest reduction, dB (positive).
        public var rangeDB: Double
        public var attackSeconds: Double
        public var holdSeconds: Double
        public var releaseSeconds: Double
        /// How far below the threshold the level must fall to close, dB.
        public var hysteresisDB: Double
        /// 0…1: 0 each channel its own gain, 1 one gain from the loudest channel.
        public var link: Double
        /// Channels of an external key (another signal the host passes to
        /// ``Gate/process(_:key:frameCount:)``); nil: the input is its own key.
        public var externalKeyChannels: Int?
        /// Sections run on a copy of the key that only the detector hears (none: the key as it is).
        public var keyFilter: [BiquadCoefficients] = []

        public init(thresholdDB: Double = -50, ratio: Double = .infinity, rangeDB: Double = 60, attackSeconds: Double = 0.001,
                    holdSeconds: Double = 0.05, releaseSeconds: Double = 0.1, hysteresisDB: Double = 3, link: Double = 1) {
            self.thresholdDB = thresholdDB; self.ratio = ratio; self.rangeDB = rangeDB; self.attackSeconds = attackSeconds
            self.holdSeconds = holdSeconds; self.releaseSeconds = releaseSeconds; self.hysteresisDB = hysteresisDB; self.link = link
        }

        /// The static gain in dB at input level `x` dB, with the gate open or closed before it.
        @inlinable
        public func gainDB(_ x: Double, wasOpen: Bool) -> Double {
            let t = wasOpen ? thresholdDB - hysteresisDB : thresholdDB
            if x >= t { return 0 }
            if ratio.isInfinite { return -rangeDB }
            return max(-rangeDB, (x - t) * (ratio - 1))
        }
    }

    public let settings: Settings
    /// The settings the render loop reads (`settings` holds an array: reading it retains).
    private(set) var law: StaticLaw
    package struct StaticLaw {
        let thresholdDB: Double, ratio: Double, rangeDB: Double, hysteresisDB: Double
        package init(thresholdDB: Double, ratio: Double, rangeDB: Double, hysteresisDB: Double) {
            self.thresholdDB = thresholdDB; self.ratio = ratio; self.rangeDB = rangeDB; self.hysteresisDB = hysteresisDB
        }
        @inline(__always) func gainDB(_ x: Double, wasOpen: Bool) -> Double {
            let t = wasOpen ? thresholdDB - hysteresisDB : thresholdDB
            if x >= t { return 0 }
            if ratio.isInfinite { return -rangeDB }
            return max(-rangeDB, (x - t) * (ratio - 1))
        }
    }
    public let channelCount: Int
    public let maximumBlockFrames: Int
    private(set) var attack: Double, release: Double, holdFrames: Int, link: Double
    /// Channels the detector hears (the external key's, or the input's).
    let keyCount: Int
    /// Per channel: [0] the smoothed gain in dB, [1] 1 when open, [2] hold frames left.
    let state: UnsafeMutablePointer<Double>
    /// Per channel `maximumBlockFrames`: the gains of the last block.
    let gains: UnsafeMutablePointer<Float>
    let levels: UnsafeMutablePointer<Double>
    /// With a key filter: the filtered copy of the key (`maximumBlockFrames` per key channel).
    let keyCascade: BiquadCascade?
    let keyScratch: UnsafeMutablePointer<Float>
    let keyPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    public init(settings: Settings, sampleRate: Double, channelCount: Int, maximumBlockFrames: Int) {
        precondition(channelCount >= 1 && maximumBlockFrames >= 1)
        self.settings = settings; self.channelCount = channelCount; self.maximumBlockFrames = maximumBlockFrames
        law = StaticLaw(thresholdDB: settings.thresholdDB, ratio: settings.ratio, rangeDB: settings.rangeDB, hysteresisDB: settings.hysteresisDB)
        attack = Self.coefficient(settings.attackSeconds, sampleRate)
        release = Self.coefficient(settings.releaseSeconds, sampleRate)
        holdFrames = Int((settings.holdSeconds * sampleRate).rounded())
        link = settings.link
        keyCount = settings.externalKeyChannels ?? channelCount
        state = .allocate(capacity: 3 * channelCount)
        gains = .allocate(capacity: channelCount * maximumBlockFrames)
        gains.initialize(repeating: 1, count: channelCount * maximumBlockFrames)
        levels = .allocate(capacity: keyCount)
        levels.initialize(repeating: -400, count: keyCount)
        state.initialize(repeating: 0, count: 3 * channelCount)
        keyCascade = settings.keyFilter.isEmpty ? nil : BiquadCascade(sections: settings.keyFilter, channelCount: keyCount)
        let scratchFrames = settings.keyFilter.isEmpty ? 1 : maximumBlockFrames
        keyScratch = .allocate(capacity: keyCount * scratchFrames)
        keyScratch.initialize(repeating: 0, count: keyCount * scratchFrames)
        keyPointers = .allocate(capacity: keyCount)
        for k in 0..<keyCount { keyPointers[k] = keyScratch + k * scratchFrames }
        reset()
    }

    /// A time constant's per-frame smoothing coefficient (0 for none).
    package static func coefficient(_ seconds: Double, _ sampleRate: Double) -> Double { seconds > 0 ? exp(-1 / (seconds * sampleRate)) : 0 }

    /// New threshold, ratio, range and hysteresis, attack and release coefficients, hold and
    /// link, from the next block on (a live edit; audio thread: every value worked out on the
    /// control thread). The smoothed gain, open state and hold carry on.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package mutating func retune(law: StaticLaw, attack: Double, release: Double, holdFrames: Int, link: Double) {
        self.law = law; self.attack = attack; self.release = release; self.holdFrames = holdFrames; self.link = link
    }

    /// Frees the state and scratch (the key filter frees itself).
    deinit { state.deallocate(); gains.deallocate(); levels.deallocate(); keyScratch.deallocate(); keyPointers.deallocate() }

    /// Back to silence: closed, at full reduction (a gate starts shut, as hardware does).
    public func reset() {
        for c in 0..<channelCount { state[3 * c] = -law.rangeDB; state[3 * c + 1] = 0; state[3 * c + 2] = 0 }
        keyCascade?.reset()
    }

    /// Continues `previous`'s gains, open/closed state and hold (a plan swap).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing Gate) {
        for k in 0..<(3 * min(channelCount, previous.channelCount)) { state[k] = previous.state[k] }
        switch previous.keyCascade {
        case .some(let old) where old.channelCount == keyCount: keyCascade?.continueState(from: old)
        default: break
        }
    }

    /// Sets NaN and infinity in the state back to a closed gate. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let key = keyCascade?.clearNonFinite() ?? false
        var bad = false
        for k in 0..<(3 * channelCount) where !state[k].isFinite { bad = true }
        if bad { reset() }
        return bad || key
    }

    /// Gates `frameCount` (≤ `maximumBlockFrames`) frames of `channels` in place, keyed on
    /// themselves.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        process(channels, key: nil, frameCount: frameCount)
    }

    /// Gates `frameCount` frames of `channels` in place, keyed on `key` (its
    /// ``Settings/externalKeyChannels`` channels; nil: the channels themselves): a gate on a
    /// bass that opens with the kick. Channel c follows key channel min(c, keys − 1), linked as set.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, key external: UnsafePointer<UnsafeMutablePointer<Float>>?,
                        frameCount: Int) {
        var key = external ?? channels
        switch keyCascade {
        case .some(let keyCascade):
            // A filtered copy: the audio (and another bus's key) stay as they are.
            for k in 0..<keyCount { let src = key[k], dst = keyPointers[k]; for i in 0..<frameCount { dst[i] = src[i] } }
            keyCascade.process(keyPointers, frameCount: frameCount)
            key = UnsafePointer(keyPointers)
        case .none: break
        }
        let s = law, link = link, attack = attack, release = release, holdFrames = holdFrames, keyCount = keyCount
        for i in 0..<frameCount {
            var loudest = -400.0
            for k in 0..<keyCount {
                let x = Double(key[k][i]), p = x * x
                let db = p > 1e-30 ? 3.010299956639812 * Double(FastLogExp.log2(Float(p))) : -400  // 10·log₁₀ (FastLogExp)
                levels[k] = db
                loudest = max(loudest, db)
            }
            for c in 0..<channelCount {
                let level = link * loudest + (1 - link) * levels[min(c, keyCount - 1)]
                let wasOpen = state[3 * c + 1] != 0
                var target = s.gainDB(level, wasOpen: wasOpen)
                let open = level >= (wasOpen ? s.thresholdDB - s.hysteresisDB : s.thresholdDB)
                state[3 * c + 1] = open ? 1 : 0
                if open {
                    state[3 * c + 2] = Double(holdFrames)
                } else if state[3 * c + 2] > 0 {
                    state[3 * c + 2] -= 1
                    target = max(target, state[3 * c])  // held: no further fall
                }
                let current = state[3 * c]
                let a = target > current ? attack : release
                let g = a * current + (1 - a) * target
                state[3 * c] = g
                gains[c * maximumBlockFrames + i] = FastLogExp.exp2(Float(g * 0.16609640474436813))  // 10^(dB/20)
            }
        }
        for c in 0..<channelCount {
            let p = channels[c], g = gains + c * maximumBlockFrames
            for i in 0..<frameCount { p[i] *= g[i] }
        }
    }

    /// The deepest reduction of the last `process` call as a gain in dB (≤ 0).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func lowestGainDB(frameCount: Int) -> Double {
        min(0, GainRows.lowestDB(gains, rows: channelCount, stride: maximumBlockFrames, frameCount: frameCount))
    }
}

extension Gate: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A gate or expander with `settings` for `format`.
    public init?(_ settings: Settings, format: KernelFormat) {
        self.init(settings: settings, sampleRate: format.sampleRate, channelCount: format.channelCount, maximumBlockFrames: format.maximumBlockFrames)
    }
}
