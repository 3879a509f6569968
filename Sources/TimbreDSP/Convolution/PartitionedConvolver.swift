import CFFTW
import CTimbreSupport

/// Zero-latency convolution of every channel with an impulse response of any length, on the
/// layout of ``PartitionLayout``: a direct-form head per sample, then levels of FFT partitions
/// (overlap-save with a frequency-domain delay line, CamillaDSP's and BruteFIR's scheme per
/// level), each level worked at its own absolute positions.
///
/// ```
///  x ──▶ input ring (mirrored: any window contiguous) ──▶ head FIR ───────────────┐
///            │                                                                    ▼
///            └─ every N samples, per level: FFT(last 2N) → delay line ─ Σ X·G ─ IFFT ─▶ output ring ─▶ y
/// ```
///
/// Channel c uses response min(c, responses − 1) of its ``ConvolutionFilter`` (one shared
/// response for all, or one each). No latency is added: a level of partition N starting at tap
/// s ≥ N computes, at sample b, outputs b + s − N … b + s − 1. The output is bit-identical
/// for every way of cutting the stream into blocks (all work at absolute positions, every sum
/// in a fixed order), and for every length of silence before the sound: while the whole state
/// is silent the position holds, and the first sound starts the grid at 0 again. Float
/// throughout; against a Double direct convolution the error is under −120 dB of the output
/// (the tests' tolerance).
///
/// Cost: the head's B multiply-adds per sample, and per level an FFT and an inverse of 2N
/// points and `count` complex multiply-adds of N + 1 bins every N samples. The work of a level
/// falls in the block holding its boundary (every level at once at multiples of the largest
/// partition): a live host with small blocks sees that block cost more than the others.
public struct PartitionedConvolver: ~Copyable, @unchecked Sendable {
    /// The filter, kept alive by the kernel (the render reads its memory through the
    /// pointers below, never through this reference).
    public let filter: ConvolutionFilter
    public let channelCount: Int
    let layout: PartitionLayout
    let headTaps: Int
    /// The layout's levels and the filter's memory, as raw pointers for the render.
    let levels: UnsafeMutablePointer<PartitionLayout.Level>
    let levelCount: Int
    let heads: UnsafeMutablePointer<Float>
    let spectra: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let responseCount: Int
    /// Per channel: the input ring, `2 × inputCapacity` floats (each sample written twice, at
    /// i and i + inputCapacity, so any window up to inputCapacity is contiguous).
    let input: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputCapacity: Int
    /// Per channel: `outputCapacity` floats of level outputs not yet due, by absolute position.
    let output: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let outputCapacity: Int
    /// Per channel, per level: `count` input spectra (interleaved complex, size + 1 bins).
    let delayLines: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Per level: the spectra's offset in a channel's delay-line block, and their plans.
    let levelOffsets: UnsafeMutablePointer<Int>
    let forwardPlans: UnsafeMutablePointer<fftwf_plan?>
    let inversePlans: UnsafeMutablePointer<fftwf_plan?>
    /// FFT work: 2 × largest time samples, then the transform and the sum (largest + 1 complex each).
    let time: UnsafeMutablePointer<Float>
    let spectrum: UnsafeMutablePointer<Float>
    let sum: UnsafeMutablePointer<Float>
    /// [0] the absolute position of the next input sample.
    let position: UnsafeMutablePointer<Int>
    /// [0] frames of silence (every channel exactly 0) in a row, up to ``quietFrames``.
    let quiet: UnsafeMutablePointer<Int>
    /// Silent frames after which every part of the state is exactly zero: the response's
    /// length, two of the largest partitions (a window and its FFT size) and the head.
    let quietFrames: Int
    let delayLineFloats: Int

    /// A convolver running `filter` on `channelCount` channels.
    public init(filter: ConvolutionFilter, channelCount: Int) {
        precondition(channelCount >= 1)
        self.filter = filter; self.channelCount = channelCount
        layout = filter.layout; headTaps = layout.headTaps
        levelCount = layout.levels.count
        levels = .allocate(capacity: max(1, levelCount))
        levels.initialize(from: layout.levels, count: levelCount)
        heads = filter.head; spectra = filter.spectra; responseCount = filter.responseCount
        let largest = layout.largestPartition
        inputCapacity = Self.powerOfTwo(atLeast: max(2 * largest, 2 * headTaps, 2))
        outputCapacity = Self.powerOfTwo(atLeast: layout.reach + 1)
        levelOffsets = .allocate(capacity: max(1, layout.levels.count))
        var floats = 0
        for (j, level) in layout.levels.enumerated() { levelOffsets[j] = floats; floats += level.count * 2 * (level.size + 1) }
        delayLineFloats = floats
        func block(_ count: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let list = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
            for c in 0..<channelCount {
                let p = fftwf_alloc_real(max(1, count))!
                p.initialize(repeating: 0, count: max(1, count))
                (list + c).initialize(to: p)
            }
            return list
        }
        input = block(2 * inputCapacity)
        output = block(outputCapacity)
        delayLines = block(floats)
        time = fftwf_alloc_real(max(2, 2 * largest))!
        spectrum = fftwf_alloc_real(max(2, 2 * (largest + 1)))!
        sum = fftwf_alloc_real(max(2, 2 * (largest + 1)))!
        time.initialize(repeating: 0, count: max(2, 2 * largest))
        spectrum.initialize(repeating: 0, count: max(2, 2 * (largest + 1)))
        sum.initialize(repeating: 0, count: max(2, 2 * (largest + 1)))
        forwardPlans = .allocate(capacity: max(1, layout.levels.count))
        inversePlans = .allocate(capacity: max(1, layout.levels.count))
        let complexSpectrum = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: fftwf_complex.self)
        let complexSum = UnsafeMutableRawPointer(sum).assumingMemoryBound(to: fftwf_complex.self)
        for (j, level) in layout.levels.enumerated() {
            (forwardPlans + j).initialize(to: FFTWPlanner.realForward(size: 2 * level.size, input: time, output: complexSpectrum))
            (inversePlans + j).initialize(to: FFTWPlanner.realInverse(size: 2 * level.size, input: complexSum, output: time))
        }
        position = .allocate(capacity: 1)
        position.initialize(to: 0)
        quietFrames = layout.length + 2 * max(largest, headTaps) + headTaps
        quiet = .allocate(capacity: 1)
        quiet.initialize(to: quietFrames)
    }

    deinit {
        for j in 0..<layout.levels.count {
            if let p = forwardPlans[j] { FFTWPlanner.destroy(p) }
            if let p = inversePlans[j] { FFTWPlanner.destroy(p) }
        }
        for c in 0..<channelCount { fftwf_free(input[c]); fftwf_free(output[c]); fftwf_free(delayLines[c]) }
        input.deallocate(); output.deallocate(); delayLines.deallocate()
        fftwf_free(time); fftwf_free(spectrum); fftwf_free(sum)
        forwardPlans.deallocate(); inversePlans.deallocate(); levelOffsets.deallocate(); position.deallocate(); quiet.deallocate(); levels.deallocate()
    }

    static func powerOfTwo(atLeast n: Int) -> Int { var p = 1; while p < n { p *= 2 }; return p }

    /// Convolves `frameCount` frames of every channel in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let b = headTaps, inMask = inputCapacity - 1, outMask = outputCapacity - 1, capacity = inputCapacity
        var done = 0
        while done < frameCount {
            if quiet.pointee >= quietFrames {
                // Nothing but silence in the state: silent input passes as silence, and the
                // first sound starts the grid again at position 0, as in a fresh kernel — so
                // a stream's leading silence (a live host's cycles before the signal, a file's
                // lead-in) does not move the levels' grid on the signal.
                var first = frameCount
                for c in 0..<channelCount {
                    let x = channels[c]
                    var i = done
                    while i < first { if x[i] != 0 { first = i; break }; i += 1 }
                }
                done = first
                if done == frameCount { break }
                position.pointee = 0
                quiet.pointee = 0
            }
            let t = position.pointee
            // Up to the next multiple of the head's size: where levels may be due.
            let n = min(frameCount - done, b - t % b)
            for c in 0..<channelCount {
                let x = channels[c] + done, ring = input[c], out = output[c]
                for i in 0..<n {
                    let at = (t + i) & inMask
                    ring[at] = x[i]; ring[at + capacity] = x[i]
                }
                // y[t + i] = Σ_m h[m]·x[t + i − m]: the window x[t + i − B + 1 … t + i] against the reversed head.
                let start = (t - b + 1) & inMask
                let head = UnsafePointer(heads + min(c, responseCount - 1) * b)
                _unsafePerformance { timbre_fir_block(head, ring + start, b, x, n) }
                for i in 0..<n {
                    let at = (t + i) & outMask
                    x[i] += out[at]; out[at] = 0
                }
            }
            // The run of silent frames, from the inputs just written to the ring.
            var run = quiet.pointee
            for i in 0..<n {
                let at = (t + i) & inMask
                var silent = true
                for c in 0..<channelCount where input[c][at] != 0 { silent = false; break }
                run = silent ? min(run + 1, quietFrames) : 0
            }
            quiet.pointee = run
            position.pointee = t + n
            done += n
            let boundary = t + n
            if boundary % b == 0 {
                for j in 0..<levelCount where boundary % levels[j].size == 0 { runLevel(j, at: boundary) }
            }
        }
    }

    /// Level j at sample `boundary` (a multiple of its size), every channel: the outputs for
    /// boundary + start − size … boundary + start − 1 into the output ring.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func runLevel(_ j: Int, at boundary: Int) {
        let level = levels[j], n = level.size, bins = n + 1, k = level.count
        let slot = (boundary / n) % k
        let inMask = inputCapacity - 1, outMask = outputCapacity - 1
        let time = time, spectrum = spectrum, sum = sum, forward = forwardPlans[j], inverse = inversePlans[j]
        for c in 0..<channelCount {
            let ring = input[c], line = delayLines[c] + levelOffsets[j], out = output[c]
            let window = ring + ((boundary - 2 * n) & inMask)
            for i in 0..<(2 * n) { time[i] = window[i] }
            _unsafePerformance { fftwf_execute(forward) }
            let fresh = line + slot * 2 * bins
            for i in 0..<(2 * bins) { fresh[i] = spectrum[i] }
            for i in 0..<(2 * bins) { sum[i] = 0 }
            let spectra = self.spectra[j] + min(c, responseCount - 1) * k * 2 * bins
            for p in 0..<k {
                let x = line + ((slot - p + k) % k) * 2 * bins, g = spectra + p * 2 * bins
                _unsafePerformance { timbre_complex_mac(sum, x, g, bins) }
            }
            _unsafePerformance { fftwf_execute(inverse) }
            let first = boundary + level.start - n
            for i in 0..<n { out[(first + i) & outMask] += time[n + i] }
        }
    }
}

extension PartitionedConvolver: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A convolver running `filter` on `format`'s channels.
    public init?(_ filter: ConvolutionFilter, format: KernelFormat) { self.init(filter: filter, channelCount: format.channelCount) }

    /// Silence before, position 0.
    public func reset() {
        for c in 0..<channelCount {
            input[c].update(repeating: 0, count: 2 * inputCapacity)
            output[c].update(repeating: 0, count: outputCapacity)
            delayLines[c].update(repeating: 0, count: max(1, delayLineFloats))
        }
        position.pointee = 0
        quiet.pointee = quietFrames
    }

    /// Takes over `previous`'s input, delay lines, pending outputs and position (the same
    /// layout and channels): with the same filter, exactly the uninterrupted output.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing PartitionedConvolver) {
        guard previous.levelCount == levelCount, previous.headTaps == headTaps, previous.channelCount == channelCount,
              previous.delayLineFloats == delayLineFloats, previous.outputCapacity == outputCapacity else { return }
        for j in 0..<levelCount where previous.levels[j] != levels[j] { return }
        for c in 0..<channelCount {
            let a = input[c], b = previous.input[c]
            for i in 0..<(2 * inputCapacity) { a[i] = b[i] }
            let o = output[c], p = previous.output[c]
            for i in 0..<outputCapacity { o[i] = p[i] }
            let d = delayLines[c], e = previous.delayLines[c]
            for i in 0..<delayLineFloats { d[i] = e[i] }
        }
        position.pointee = previous.position.pointee
        quiet.pointee = previous.quiet.pointee
    }

    /// Clears everything if NaN or infinity reached the input, the pending outputs or the
    /// delay lines; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for c in 0..<channelCount {
            bad = bad || NonFiniteScan.contains(input[c], count: 2 * inputCapacity) || NonFiniteScan.contains(output[c], count: outputCapacity)
                || NonFiniteScan.contains(delayLines[c], count: delayLineFloats)
        }
        guard bad else { return false }
        let t = position.pointee
        reset()
        position.pointee = t  // the levels stay on their absolute grid
        return true
    }
}
