import Foundation

/// Per-channel levels: sample peak, RMS, clipped samples, and AVAudioPlayer's
/// `peakPower` / `averagePower` pair with meter ballistics.
///
/// - **Sample peak** (dBFS): the largest |x|.
/// - **RMS** (dBFS, AES17 convention): 20·log10(√mean(x²)) + 3.01 dB, so a full-scale sine
///   reads 0 dBFS (and a full-scale square +3.01 dBFS).
/// - **Clipped samples**: samples with |x| ≥ 1 (at or beyond full scale).
/// - **Ballistics**, updated every 10 ms tick at absolute sample positions (so block sizes
///   never change them): `peakPower` holds the tick peak for ``peakHoldSeconds`` (1.5 s), then
///   falls at ``peakFallDBPerSecond`` (20 dB/s, IEC 60268-10 Type I's 20 dB in 1.7 s rounded);
///   `averagePower` is the AES17 RMS through an exponential integrator with time constant
///   ``averageSeconds`` (300 ms, VU-like). Both in dBFS, −160 for silence (AVAudioPlayer's floor).
///
/// Samples are reduced eight at a time in SIMD lanes (peak, Σx², clip count). Lane j of the
/// Σx² accumulator always takes the samples whose absolute position ≡ j (mod 8), and the lanes
/// persist across blocks within a tick, so the summation order — and every result — is the
/// same whatever block sizes the meter is fed. Σx² is carried in Double across ticks.
public struct LevelMeter: ~Copyable {
    public static let peakHoldSeconds = 1.5
    public static let peakFallDBPerSecond = 20.0
    public static let averageSeconds = 0.3
    public static let floorDB = -160.0

    public let sampleRate: Double
    public let channelCount: Int
    /// Per-tick ballistics constants, computed once (no libm call on the render path).
    @usableFromInline let holdTicks: Double, fallFactor: Double, alpha: Double
    /// Per channel, `Field.count` values.
    @usableFromInline let values: UnsafeMutablePointer<Double>
    @usableFromInline let clock: UnsafeMutablePointer<Double>  // [position, next tick, tick index]
    /// Per channel, 8 Float lanes of Σx² for the tick in progress.
    @usableFromInline let lanes: UnsafeMutablePointer<SIMD8<Float>>

    @usableFromInline enum Field: Int {
        case peak = 0, sumSquares, frames, clipped, tickPeak, tickSumSquares, tickFrames, heldPeak, holdLeft, averageMS, count
    }

    public init(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate; self.channelCount = channelCount
        let tickSeconds = 0.01
        holdTicks = Self.peakHoldSeconds / tickSeconds
        fallFactor = pow(10, -Self.peakFallDBPerSecond * tickSeconds / 20)
        alpha = 1 - exp(-tickSeconds / Self.averageSeconds)
        values = .allocate(capacity: channelCount * Field.count.rawValue)
        clock = .allocate(capacity: 3)
        lanes = .allocate(capacity: channelCount)
        lanes.initialize(repeating: .zero, count: channelCount)
        values.initialize(repeating: 0, count: channelCount * Field.count.rawValue)
        clock.initialize(from: [0, (sampleRate / 100).rounded(), 0], count: 3)
    }

    deinit { values.deallocate(); clock.deallocate(); lanes.deallocate() }

    public func reset() {
        values.update(repeating: 0, count: channelCount * Field.count.rawValue)
        clock.update(from: [0, (sampleRate / 100).rounded(), 0], count: 3)
        lanes.update(repeating: .zero, count: channelCount)
    }

    public func continueState(from other: borrowing LevelMeter) {
        guard other.channelCount == channelCount, other.sampleRate == sampleRate else { return }
        values.update(from: other.values, count: channelCount * Field.count.rawValue)
        clock.update(from: other.clock, count: 3)
        lanes.update(from: other.lanes, count: channelCount)
    }

    @inlinable func v(_ c: Int, _ f: Field) -> UnsafeMutablePointer<Double> { values + c * Field.count.rawValue + f.rawValue }

    /// Feeds `frameCount` frames of planar audio. Allocation-free.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let n = min(frameCount - done, Int(clock[1] - clock[0]))
            let phase = Int(clock[0]) & 7
            for c in 0..<channelCount {
                let (peak, clipped) = Self.reduce(channels[c] + done, count: n, phase: phase, lanes: lanes + c)
                v(c, .tickPeak).pointee = max(v(c, .tickPeak).pointee, Double(peak))
                v(c, .tickFrames).pointee += Double(n)
                v(c, .clipped).pointee += Double(clipped)
            }
            clock[0] += Double(n)
            done += n
            if clock[0] >= clock[1] { finishTick() }
        }
    }

    /// The largest |x[i]| (0 for none), eight samples at a time on the IEEE bits with the sign
    /// cleared, as `reduce` takes the peak (NaN counts as larger than any number).
    public static func largestMagnitude(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let raw = UnsafeRawPointer(x), magnitude = SIMD8<Int32>(repeating: 0x7FFF_FFFF)
        var peakBits = SIMD8<Int32>(repeating: 0), i = 0
        while i + 8 <= count {
            let d = (raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Int32>.self) & magnitude) &- peakBits
            peakBits = peakBits &+ (d & ~(d &>> 31))  // peakBits + max(d, 0)
            i += 8
        }
        var p = Float(bitPattern: UInt32(bitPattern: peakBits.max()))
        while i < count { p = max(p, abs(x[i])); i += 1 }
        return p
    }

    /// Peak and the count of |x| ≥ 1 over `count` samples; adds x² into `lanes` (lane j takes
    /// the samples at absolute position ≡ j mod 8; the first sample is at `phase`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    static func reduce(_ x: UnsafeMutablePointer<Float>, count: Int, phase: Int, lanes: UnsafeMutablePointer<SIMD8<Float>>) -> (Float, Int) {
        var squares = lanes.pointee
        var p: Float = 0, k = 0
        var i = 0
        // Head: up to the next absolute multiple of 8, one lane at a time.
        while i < count && (phase + i) & 7 != 0 {
            let a = abs(x[i])
            p = max(p, a); squares[(phase + i) & 7] += x[i] * x[i]; k += a >= 1 ? 1 : 0
            i += 1
        }
        let raw = UnsafeRawPointer(x)
        let bulkStart = i
        // |x| as the IEEE bits with the sign cleared: for non-negative floats the integer order
        // is the float order, and an integer max without masks vectorises (a float
        // `pointwiseMax` compiles to mask selects here: measured 2.07 vs 0.21 ns a sample).
        var peakBits = SIMD8<Int32>(repeating: 0)
        let magnitude = SIMD8<Int32>(repeating: 0x7FFF_FFFF)
        while i + 8 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let b = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Int32>.self) & magnitude
            let d = b &- peakBits
            peakBits = peakBits &+ (d & ~(d &>> 31))  // peakBits + max(d, 0)
            squares += a * a
            i += 8
        }
        p = max(p, Float(bitPattern: UInt32(bitPattern: peakBits.max())))
        // Clipping is rare: count it only when the bulk reached full scale (no mask in the loop).
        if p >= 1 { for j in bulkStart..<i where abs(x[j]) >= 1 { k += 1 } }
        while i < count {  // tail
            let a = abs(x[i])
            p = max(p, a); squares[(phase + i) & 7] += x[i] * x[i]; k += a >= 1 ? 1 : 0
            i += 1
        }
        lanes.pointee = squares
        return (p, k)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    func finishTick() {
        for c in 0..<channelCount {
            let l = lanes[c]
            v(c, .tickSumSquares).pointee = Double(l[0]) + Double(l[1]) + Double(l[2]) + Double(l[3])
                + Double(l[4]) + Double(l[5]) + Double(l[6]) + Double(l[7])
            lanes[c] = .zero
            let tickPeak = v(c, .tickPeak).pointee
            v(c, .peak).pointee = max(v(c, .peak).pointee, tickPeak)
            v(c, .sumSquares).pointee += v(c, .tickSumSquares).pointee
            v(c, .frames).pointee += v(c, .tickFrames).pointee
            if tickPeak >= v(c, .heldPeak).pointee {
                v(c, .heldPeak).pointee = tickPeak; v(c, .holdLeft).pointee = holdTicks
            } else if v(c, .holdLeft).pointee > 0 {
                v(c, .holdLeft).pointee -= 1
            } else {
                v(c, .heldPeak).pointee = max(tickPeak, v(c, .heldPeak).pointee * fallFactor)
            }
            let ms = v(c, .tickFrames).pointee > 0 ? v(c, .tickSumSquares).pointee / v(c, .tickFrames).pointee : 0
            v(c, .averageMS).pointee += alpha * (ms - v(c, .averageMS).pointee)
            v(c, .tickPeak).pointee = 0; v(c, .tickSumSquares).pointee = 0; v(c, .tickFrames).pointee = 0
        }
        clock[2] += 1
        clock[1] = Double(Int64((clock[2] + 1) * sampleRate / 100 + 0.5))  // round half up, as in init
    }

    static func db(_ linear: Double) -> Double { linear > 0 ? max(floorDB, 20 * log10(linear)) : floorDB }

    /// Sample peak in dBFS (includes the tick in progress).
    public func samplePeakDBFS(channel c: Int) -> Double { Self.db(max(v(c, .peak).pointee, v(c, .tickPeak).pointee)) }
    /// RMS in dBFS, AES17 (a full-scale sine reads 0 dBFS), over everything so far.
    public func rmsDBFS(channel c: Int) -> Double {
        let n = v(c, .frames).pointee + v(c, .tickFrames).pointee
        guard n > 0 else { return Self.floorDB }
        let l = lanes[c]
        let ms = (v(c, .sumSquares).pointee + Double(l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7])) / n
        return ms > 0 ? 10 * log10(ms) + 10 * log10(2.0) : Self.floorDB
    }
    public func clippedSamples(channel c: Int) -> Int { Int(v(c, .clipped).pointee) }
    /// AVAudioPlayer's `peakPower(forChannel:)`: held and falling peak, dBFS.
    public func peakPower(channel c: Int) -> Double { Self.db(v(c, .heldPeak).pointee) }
    /// AVAudioPlayer's `averagePower(forChannel:)`: AES17 RMS through a 300 ms integrator, dBFS.
    public func averagePower(channel c: Int) -> Double {
        let ms = v(c, .averageMS).pointee
        return ms > 0 ? max(Self.floorDB, 10 * log10(ms) + 10 * log10(2.0)) : Self.floorDB
    }
}

extension LevelMeter: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A meter for `format`'s rate and channels.
    public init?(_ setup: Void, format: KernelFormat) { self.init(sampleRate: format.sampleRate, channelCount: format.channelCount) }

    /// Zeroes NaN and infinity among the readings and the tick in progress; true when there was some.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var lanesBad = false
        for c in 0..<channelCount {
            for j in 0..<8 where !lanes[c][j].isFinite { lanes[c][j] = 0; lanesBad = true }
        }
        return NonFiniteScan.zero(values, count: channelCount * Field.count.rawValue) || lanesBad
    }
}
