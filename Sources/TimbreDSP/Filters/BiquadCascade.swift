import CTimbreSupport

/// A cascade of second-order sections over planar `Float` buffers, state carried across blocks.
///
/// Transposed direct form II in `Double` (coefficients and state), samples in `Float`, stereo
/// pairs of channels at a time (an odd last channel runs alone). Every sample goes through all
/// sections before it is rounded back to `Float`:
///
/// ```
/// for each frame n:  x = in[n]
///   for each section k:  y = b0·x + s1;  s1 = b1·x − a1·y + s2;  s2 = b2·x − a2·y;  x = y
///   out[n] = Float(x)
/// ```
///
/// The loop is C (`timbre_cascade_process_channels`, chosen once at load time): on CPUs with AVX2+FMA a
/// wavefront in which section k works on frame t − k while section k+1 works on frame t − k − 1,
/// so the sections run in parallel (two sections × two channels per 256-bit vector) — with the
/// 32 vector registers of AVX-512VL when the CPU has them (the same arithmetic, fewer loads);
/// elsewhere a portable frame-by-frame loop (`BiquadCascade.Kernel`). Both keep the state in one layout and drain at every block end:
/// no latency, and output bit-identical across block sizes on a given path (the paths differ
/// by FMA rounding only). Sections are padded to an even count with identity sections.
///
/// Memory: `init` allocates coefficient and state storage once; `process` never allocates.
/// The cascade is non-copyable (``AudioKernel``): its one owner ends it and `deinit` frees the
/// storage (the engine's plans do this on the control thread).
public struct BiquadCascade: ~Copyable {
    /// Per channel pair `vectorCount × 8` doubles: for vector v, the s1 lanes
    /// (L 2v, R 2v, L 2v+1, R 2v+1) then the s2 lanes.
    @usableFromInline let state: UnsafeMutablePointer<Double>
    /// `vectorCount × 20` doubles: for vector v, b0 b1 b2 a1 a2 each as 4 lanes.
    @usableFromInline let coefficients: UnsafeMutablePointer<Double>
    /// Sections that are not identities (the ones given, identities dropped).
    public let sectionCount: Int
    public let channelCount: Int
    /// Two sections per vector: ⌈sectionCount / 2⌉.
    @usableFromInline let vectorCount: Int
    @usableFromInline var pairCount: Int { (channelCount + 1) / 2 }
    @usableFromInline var stateCount: Int { pairCount * vectorCount * 8 }

    /// Allocates storage for `sections` on `channelCount` channels with cleared state.
    /// Identity sections are left out, unless `keepingIdentities` (a live cascade whose flat
    /// bands may move: an identity section passes every sample unchanged, bit for bit).
    public init(sections: [BiquadCoefficients], channelCount: Int, keepingIdentities: Bool = false) {
        precondition(channelCount >= 1)
        let active = keepingIdentities ? sections : sections.filter { !$0.isIdentity }
        sectionCount = active.count
        self.channelCount = channelCount
        vectorCount = (active.count + 1) / 2
        coefficients = Self.allocateAligned(max(1, vectorCount * 20))
        for k in 0..<(2 * vectorCount) {
            let c = k < active.count ? active[k] : BiquadCoefficients.identity
            let v = k / 2, lane = (k % 2) * 2
            for (j, value) in [c.b0, c.b1, c.b2, c.a1, c.a2].enumerated() {
                coefficients[20 * v + 4 * j + lane] = value      // left channel's lane
                coefficients[20 * v + 4 * j + lane + 1] = value  // right channel's lane
            }
        }
        let pairs = (channelCount + 1) / 2
        state = Self.allocateAligned(max(1, pairs * vectorCount * 8))
    }

    /// Zeroed Doubles on a 64-byte boundary: the kernels load them 32 bytes at a time, and
    /// malloc's 16-byte alignment made half of those loads split cache lines whenever an
    /// allocation happened to start 16 bytes past a 32-byte boundary — 11 sections measured
    /// 5.2 ns per stereo frame aligned, 6.9 ns misaligned (C harness), at random per plan.
    static func allocateAligned(_ count: Int) -> UnsafeMutablePointer<Double> {
        let p = UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Double>.stride, alignment: 64)
            .bindMemory(to: Double.self, capacity: count)
        p.initialize(repeating: 0, count: count)
        return p
    }

    deinit {
        state.deallocate()
        coefficients.deallocate()
    }

    /// Copies the memory of `count` sections of `other` starting at section `from` into this
    /// cascade's sections starting at `to` (same channel count): a redesigned filter continues
    /// where the old one was instead of starting from silence, also when it sits at another
    /// place of a longer (fused) cascade now.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func copyState(from other: borrowing BiquadCascade, sections from: Int, to: Int, count: Int) {
        guard other.channelCount == channelCount, from >= 0, to >= 0,
              from + count <= other.sectionCount, to + count <= sectionCount else { return }
        for p in 0..<pairCount {
            let src = other.state + p * other.vectorCount * 8, dst = state + p * vectorCount * 8
            for k in 0..<count {
                let a = Self.slot(from + k), b = Self.slot(to + k)
                for ch in 0..<2 {
                    dst[b + ch] = src[a + ch]          // s1
                    dst[b + ch + 4] = src[a + ch + 4]  // s2
                }
            }
        }
    }

    /// Index of section k's s1 lane for the left channel within a pair's state.
    @inlinable static func slot(_ k: Int) -> Int { (k / 2) * 8 + (k % 2) * 2 }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    /// True when any state value is NaN or infinite (reads `8 × ⌈sectionCount / 2⌉` values per channel pair).
    @inlinable
    func nonFiniteStateCheck() -> Bool {
        var bad = false
        for i in 0..<stateCount { bad = bad || !state[i].isFinite }
        return bad
    }

    /// Clears the state if it holds NaN or infinity; true when it did. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        guard nonFiniteStateCheck() else { return false }
        reset()
        return true
    }

    /// Clears the filter state (as if preceded by silence). Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func reset() {
        for i in 0..<stateCount { state[i] = 0 }
    }

    /// Filters `frameCount` frames in place. `channels[c]` points at channel c's samples.
    /// Real-time safe: no allocation or locks (the C kernel neither allocates nor locks).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if sectionCount == 0 || frameCount == 0 { return }
        // (Trivial locals: a closure over a non-copyable `self` would box it.)
        let coefficients = coefficients, state = state, sections = sectionCount, channelCount = channelCount
        _unsafePerformance {
            timbre_cascade_process_channels(coefficients, state, sections, UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self),
                                            channelCount, frameCount)
        }
    }

    /// The loops `process` can run; ``kernel`` is the one chosen on this CPU at load time.
    package enum Kernel: Int32, CaseIterable, Sendable, CustomStringConvertible {
        /// Frame by frame through the sections (SSE2 on x86-64, plain Double elsewhere).
        case portable = 0
        /// The AVX2+FMA wavefront with 16 vector registers.
        case avx2 = 1
        /// The AVX2+FMA wavefront using AVX-512VL's 32 vector registers (`TIMBRE_NO_AVX512=1`
        /// declines it).
        case avx512vl = 2

        package var description: String {
            switch self {
            case .portable: "portable"
            case .avx2: "AVX2+FMA"
            case .avx512vl: "AVX2+FMA with AVX-512VL registers"
            }
        }
    }

    /// The kernel `process(_:frameCount:)` runs on this CPU (`TIMBRE_NO_AVX2=1` forces `.portable`).
    package static var kernel: Kernel { Kernel(rawValue: timbre_cascade_kernel()) ?? .portable }

    /// The kernels this CPU can run, whatever was chosen (tests compare them all).
    package static var availableKernels: [Kernel] {
        var coefficient: Double = 0, state: Double = 0
        return Kernel.allCases.filter { timbre_cascade_process_with($0.rawValue, &coefficient, &state, 0, nil, 0, 0) != 0 }
    }

    /// `process(_:frameCount:)` with the given kernel whatever was chosen (for tests and
    /// benchmarks; one of ``availableKernels``).
    package func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, kernel: Kernel) {
        if sectionCount == 0 || frameCount == 0 { return }
        let ran = timbre_cascade_process_with(kernel.rawValue, coefficients, state, sectionCount,
                                              UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self), channelCount, frameCount)
        precondition(ran != 0, "BiquadCascade: the \(kernel) kernel cannot run on this CPU")
    }
}

extension BiquadCascade: InPlaceAudioKernel, ContinuableAudioKernel {
    /// Prepares a cascade of `sections` (identities dropped) for `format`'s channels.
    public init?(_ sections: [BiquadCoefficients], format: KernelFormat) {
        self.init(sections: sections, channelCount: format.channelCount)
    }

    /// Takes over every section's memory of `previous` (same sections and channels).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing BiquadCascade) {
        guard previous.sectionCount == sectionCount else { return }
        copyState(from: previous, sections: 0, to: 0, count: sectionCount)
    }
}
