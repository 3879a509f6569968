import CFFTW
import CTimbreSupport

/// The high-quality engine of ``Resampler``: band-limited conversion by overlap-save FFT
/// blocks in Double precision (FFTW), the same filter as the polyphase engine at about a
/// fifth of its cost per frame.
///
/// Output frame n is y(n·M/L), y(t) = Σₘ x[m]·g(t − m), g the `WindowedSincLowpass`.
/// Per block of N_in = M·q input frames (``SpectralBlockLayout``):
///
/// ```
/// X = DFT_N_in(block)
/// Y_k = X_k · G_k / N_in   for |k| below the lower Nyquist bin,   0 elsewhere
/// y   = IDFT_N_out(Y),     N_out = L·q
/// ```
/// G is the DFT of g's integer samples. Both transforms have the same bin spacing
/// (fs_in/N_in = fs_out/N_out), so the inverse evaluates the filtered block's band-limited
/// interpolation at output spacing M/L. That equals the linear convolution with g (g's
/// spectrum beyond the lower Nyquist is below the stopband, so its trigonometric interpolation
/// is g itself to that accuracy) wherever the kernel stays inside the block; the layout keeps
/// only those outputs (overlap-save: Oppenheim & Schafer §8.7.3; libsoxr converts in DFT
/// stages too). G is real (g is even), so two channels travel as one complex signal
/// x_c + i·x_(c+1): the real and imaginary parts of the inverse are their outputs.
///
/// Blocks sit at absolute input positions, so the output does not depend on how the stream
/// is split into calls, and the plans are FFTW_ESTIMATE plans, the same in every process.
/// Pull model as ``PolyphaseResampler``: ``inputFramesNeeded(forOutputFrames:)``, then
/// `process(input:inputFrames:output:outputFrames:)`; the output is aligned (output 0 is
/// input 0) and the first call needs ``latencyInputFrames`` of lookahead. Nothing is
/// allocated after `init`; `process` runs two FFTW executions per channel pair per block.
public struct SpectralResampler: ~Copyable {
    public let ratio: RationalRatio
    public let channelCount: Int
    public let maximumOutputFrames: Int
    public let layout: SpectralBlockLayout
    /// The most input frames ``inputFramesNeeded(forOutputFrames:)`` asks for in one call.
    public let maximumInputFrames: Int
    /// Input frames the first output frame needs: how far the input reaches past the output.
    public var latencyInputFrames: Int { layout.inputBlock - layout.leadInput }

    /// Per channel `pendingCapacity` Floats: the current block's input from its first frame.
    let pending: UnsafeMutablePointer<Float>
    let pendingCapacity: Int
    /// Per channel `hopOutput` Floats: the outputs of the last block.
    let ready: UnsafeMutablePointer<Float>
    /// N_in interleaved complex values: the packed block, then its transform in `bins`.
    let work: UnsafeMutablePointer<Double>
    let bins: UnsafeMutablePointer<Double>
    /// N_out interleaved complex values: the weighted spectrum, then its inverse in `result`.
    /// (Out-of-place plans: FFTW_ESTIMATE's in-place plans spend ~15 % in copy passes.)
    let spectrum: UnsafeMutablePointer<Double>
    let result: UnsafeMutablePointer<Double>
    /// G_k / N_in for k = 0 … `binPairs`.
    let gain: UnsafeMutablePointer<Double>
    /// Bins each side of DC kept: those below the lower Nyquist.
    let binPairs: Int
    /// [0] frames in `pending`, [1] first unread frame in `ready`, [2] frames left in `ready`.
    let state: UnsafeMutablePointer<Int>
    let forward: fftw_plan
    let inverse: fftw_plan

    /// A converter producing `ratio.upsampling` frames per `ratio.downsampling` input frames;
    /// nil when the block layout would need a transform above ``SpectralBlockLayout/maximumTransform``.
    public init?(ratio: RationalRatio, channelCount: Int, quality: ResamplerQuality, maximumOutputFrames: Int) {
        let kernel = WindowedSincLowpass(ratio: ratio, quality: quality)
        guard channelCount >= 1, maximumOutputFrames >= 1,
              let layout = SpectralBlockLayout(ratio: ratio, reach: kernel.reach) else { return nil }
        self.ratio = ratio
        self.channelCount = channelCount
        self.maximumOutputFrames = maximumOutputFrames
        self.layout = layout
        let blocks = (maximumOutputFrames + layout.hopOutput - 1) / layout.hopOutput
        maximumInputFrames = layout.inputBlock - layout.leadInput + (blocks - 1) * layout.hopInput
        pendingCapacity = layout.inputBlock + maximumInputFrames
        pending = .allocate(capacity: channelCount * pendingCapacity)
        pending.initialize(repeating: 0, count: channelCount * pendingCapacity)
        ready = .allocate(capacity: channelCount * layout.hopOutput)
        ready.initialize(repeating: 0, count: channelCount * layout.hopOutput)  // (clearNonFinite reads all of it)
        work = fftw_alloc_real(2 * layout.inputBlock)!
        bins = fftw_alloc_real(2 * layout.inputBlock)!
        spectrum = fftw_alloc_real(2 * layout.outputBlock)!
        result = fftw_alloc_real(2 * layout.outputBlock)!
        binPairs = (min(layout.inputBlock, layout.outputBlock) - 1) / 2
        gain = .allocate(capacity: binPairs + 1)
        state = .allocate(capacity: 3)
        state.initialize(repeating: 0, count: 3)
        forward = FFTWPlanner.complexDouble(size: layout.inputBlock, from: work, to: bins, forward: true)
        inverse = FFTWPlanner.complexDouble(size: layout.outputBlock, from: spectrum, to: result, forward: false)

        // G: the DFT of g at integer times, wrapped (g(−m) at N_in − m); normalised to unity at DC.
        let n = layout.inputBlock
        work.update(repeating: 0, count: 2 * n)
        var sum = 0.0
        for m in -kernel.reach...kernel.reach {
            let g = kernel.value(at: Double(m))
            work[2 * ((m + n) % n)] = g
            sum += g
        }
        fftw_execute(forward)
        for k in 0...binPairs { gain[k] = bins[2 * k] / (sum * Double(n)) }
        reset()
    }

    /// Frees the storage and plans (FFTW's planner lock: end a converter off the render thread).
    deinit {
        FFTWPlanner.destroyDouble(forward)
        FFTWPlanner.destroyDouble(inverse)
        fftw_free(work); fftw_free(bins); fftw_free(spectrum); fftw_free(result)
        pending.deallocate(); ready.deallocate(); gain.deallocate(); state.deallocate()
    }

    /// Back to the start of a stream: silence before input frame 0, output 0 at input 0.
    public func reset() {
        pending.update(repeating: 0, count: channelCount * pendingCapacity)
        state[0] = layout.leadInput  // the lead is the silence before the signal
        state[1] = 0
        state[2] = 0
    }

    /// Input frames `process` needs with the next `outputFrames` output frames: 0 while the
    /// last block's outputs last, then whole hops (the first block also its lookahead).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        let left = state[2]
        guard outputFrames > left else { return 0 }
        let blocks = (outputFrames - left + layout.hopOutput - 1) / layout.hopOutput
        return Swift.max(0, layout.inputBlock + (blocks - 1) * layout.hopInput - state[0])
    }

    /// Appends `inputFrames` frames (exactly ``inputFramesNeeded(forOutputFrames:)``) and
    /// writes `outputFrames` converted frames.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(input: UnsafePointer<UnsafePointer<Float>>, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) {
        precondition(outputFrames <= maximumOutputFrames && state[0] + inputFrames <= pendingCapacity,
                     "SpectralResampler.process: more frames than it was built for")
        for c in 0..<channelCount {
            UnsafeMutableRawPointer(pending + c * pendingCapacity + state[0])
                .copyMemory(from: input[c], byteCount: inputFrames * MemoryLayout<Float>.stride)
        }
        state[0] += inputFrames
        var written = 0
        while written < outputFrames {
            if state[2] == 0 {
                precondition(state[0] >= layout.inputBlock, "SpectralResampler.process: fewer input frames than needed")
                transformBlock()
            }
            let n = Swift.min(state[2], outputFrames - written)
            for c in 0..<channelCount {
                UnsafeMutableRawPointer(output[c] + written)
                    .copyMemory(from: ready + c * layout.hopOutput + state[1], byteCount: n * MemoryLayout<Float>.stride)
            }
            state[1] += n; state[2] -= n
            written += n
        }
    }

    /// Converts the block at the front of `pending` into `ready` and advances one hop.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func transformBlock() {
        let nIn = layout.inputBlock, nOut = layout.outputBlock, hop = layout.hopOutput
        let first = layout.leadInput / ratio.downsampling * ratio.upsampling  // first kept output index
        // (Trivial locals: a closure over a non-copyable `self` would box it.)
        let work = work, bins = bins, gain = gain, binPairs = binPairs, spectrum = spectrum, result = result
        let forward = forward, inverse = inverse, pendingCapacity = pendingCapacity
        var c = 0
        while c < channelCount {
            let a = pending + c * pendingCapacity, ya = ready + c * hop
            let pair = c + 1 < channelCount
            _unsafePerformance {
                timbre_pack_complex(a, pair ? a + pendingCapacity : nil, work, nIn)
                fftw_execute(forward)
                timbre_weigh_bins(bins, nIn, gain, binPairs, spectrum, nOut)
                fftw_execute(inverse)
                timbre_unpack_complex(result + 2 * first, ya, pair ? ya + hop : nil, hop)
            }
            c += 2
        }
        // Drop one hop of input: the next block starts hopInput frames later.
        let keep = state[0] - layout.hopInput
        for ch in 0..<channelCount {
            let a = pending + ch * pendingCapacity
            UnsafeMutableRawPointer(a).copyMemory(from: a + layout.hopInput, byteCount: keep * MemoryLayout<Float>.stride)
        }
        state[0] = keep
        state[1] = 0
        state[2] = hop
    }
}

extension SpectralResampler: AudioKernel {
    /// A converter by `setup.ratio` at `setup.quality` for `format`'s channels, at most
    /// `format.maximumBlockFrames` output frames a call.
    public init?(_ setup: Resampler.Setup, format: KernelFormat) {
        self.init(ratio: setup.ratio, channelCount: format.channelCount, quality: setup.quality, maximumOutputFrames: format.maximumBlockFrames)
    }

    /// Zeroes NaN and infinity in the pending input and the outputs not yet read; true when there was some.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let input = NonFiniteScan.zero(pending, count: channelCount * pendingCapacity)
        return NonFiniteScan.zero(ready, count: channelCount * layout.hopOutput) || input
    }
}
