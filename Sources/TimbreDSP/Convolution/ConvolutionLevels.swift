import Atomics
import CFFTW
import CTimbreSupport

/// The FFT levels of a ``PartitionedConvolver``: its memory as raw pointers — a copyable view
/// the render thread and its worker share — and the work of one level at one boundary.
///
/// A level below ``ConvolutionThreading/deferredPartition`` adds its outputs to the output
/// ring at once. A deferred level is a job: the render thread posts it at its boundary, it
/// is computed into the level's own buffers (by the worker, or at once by the render thread),
/// and the render thread adds those buffers to the output ring when they fall due. Job states
/// move idle → posted → running → done → idle; a job the render thread gives up on while it
/// runs is marked abandoned and its worker drops the result.
struct ConvolutionLevels: @unchecked Sendable {
    enum Job {
        static let idle = 0, posted = 1, running = 2, done = 3, abandoned = 4
    }

    let levels: UnsafeMutablePointer<PartitionLayout.Level>
    let levelCount: Int
    let channelCount: Int
    /// Per channel: the input ring, `2 × inputCapacity` floats (each sample written twice, at
    /// i and i + inputCapacity, so any window up to inputCapacity is contiguous).
    let input: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputCapacity: Int
    /// Per channel: `outputCapacity` floats of level outputs not yet due, by absolute position.
    let output: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let outputCapacity: Int
    /// Per channel and level (index c × levelCount + j): the level's frequency-domain delay
    /// line, `count` spectra of `size + 1` complex bins (one allocation each, so that a kernel
    /// taking over the state takes the memory, not a copy).
    let delayLines: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let spectra: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let responseCount: Int
    let forwardPlans: UnsafeMutablePointer<fftwf_plan?>
    let inversePlans: UnsafeMutablePointer<fftwf_plan?>
    /// The first deferred level (levelCount with none).
    let deferredFrom: Int
    /// Per deferred level and channel (index (j − deferredFrom) × channels + c): `size` floats
    /// of outputs, and the job's input window (2 × `size` floats, copied from the input ring
    /// when posted: the worker never reads the ring the render thread writes).
    let results: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let windows: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Per level: the job's state, its boundary, and whether the render thread had FTZ/DAZ set.
    let states: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    let boundaries: UnsafeMutablePointer<Int>
    let flushesDenormals: UnsafeMutablePointer<Bool>
    /// While crossfading from a previous filter (``PartitionedConvolver``'s transition):
    /// that filter's spectra and response count, its output ring per channel and its deferred
    /// results; `fades[j]`: level j's job computes both filters.
    let oldSpectra: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    let oldResponseCount: Int
    let oldOutput: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    let oldResults: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    let fades: UnsafeMutablePointer<Bool>

    func state(_ j: Int) -> UnsafeAtomic<Int> { UnsafeAtomic(at: states + j) }
    func delayLine(_ j: Int, _ c: Int) -> UnsafeMutablePointer<Float> { delayLines[c * levelCount + j] }
    /// Floats in one of level j's delay lines.
    func lineFloats(_ j: Int) -> Int { levels[j].count * 2 * (levels[j].size + 1) }
    func result(_ j: Int, _ c: Int) -> UnsafeMutablePointer<Float> { results[(j - deferredFrom) * channelCount + c] }
    func window(_ j: Int, _ c: Int) -> UnsafeMutablePointer<Float> { windows[(j - deferredFrom) * channelCount + c] }
    func oldResult(_ j: Int, _ c: Int) -> UnsafeMutablePointer<Float> { oldResults![(j - deferredFrom) * channelCount + c] }

    /// Copies deferred level j's input window for a job at `boundary` (render thread).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func capture(_ j: Int, at boundary: Int) {
        let n = levels[j].size, inMask = inputCapacity - 1
        for c in 0..<channelCount {
            let from = input[c] + ((boundary - 2 * n) & inMask), to = window(j, c)
            for i in 0..<(2 * n) { to[i] = from[i] }
        }
    }

    /// Level j at sample `boundary` (a multiple of its size), every channel: the outputs for
    /// boundary + start − size … boundary + start − 1, added to the output ring, or for a
    /// deferred level written to its result buffers, using the calling thread's `scratch`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func run(_ j: Int, at boundary: Int, scratch: ConvolutionScratch) {
        let time = scratch.time, spectrum = scratch.spectrum, sum = scratch.sum
        let level = levels[j], n = level.size, bins = n + 1, k = level.count
        let slot = (boundary / n) % k
        let inMask = inputCapacity - 1, outMask = outputCapacity - 1
        let forward = forwardPlans[j], inverse = inversePlans[j]
        let complexSpectrum = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: fftwf_complex.self)
        let complexSum = UnsafeMutableRawPointer(sum).assumingMemoryBound(to: fftwf_complex.self)
        for c in 0..<channelCount {
            let line = delayLine(j, c)
            let window = j >= deferredFrom ? self.window(j, c) : input[c] + ((boundary - 2 * n) & inMask)
            for i in 0..<(2 * n) { time[i] = window[i] }
            // New-array execution: the plans were made on FFTW-aligned buffers like these,
            // so every thread runs the same codelets and gets the same bits.
            _unsafePerformance { fftwf_execute_dft_r2c(forward, time, complexSpectrum) }
            let fresh = line + slot * 2 * bins
            for i in 0..<(2 * bins) { fresh[i] = spectrum[i] }
            let filters = fades[j] ? 2 : 1
            for f in 0..<filters {
                // f = 0 the filter; f = 1 the one it crossfades from, into its own ring and results.
                for i in 0..<(2 * bins) { sum[i] = 0 }
                let spectra = f == 0 ? self.spectra[j] + min(c, responseCount - 1) * k * 2 * bins
                                     : oldSpectra![j] + min(c, oldResponseCount - 1) * k * 2 * bins
                for p in 0..<k {
                    let x = line + ((slot - p + k) % k) * 2 * bins, g = spectra + p * 2 * bins
                    _unsafePerformance { timbre_complex_mac(sum, x, g, bins) }
                }
                _unsafePerformance { fftwf_execute_dft_c2r(inverse, complexSum, time) }
                if j >= deferredFrom {
                    let r = f == 0 ? result(j, c) : oldResult(j, c)
                    for i in 0..<n { r[i] = time[n + i] }
                } else {
                    let out = f == 0 ? output[c] : oldOutput![c], first = boundary + level.start - n
                    for i in 0..<n { out[(first + i) & outMask] += time[n + i] }
                }
            }
        }
    }

    /// Where a deferred level's outputs start for a job at `boundary`.
    func due(_ j: Int, boundary: Int) -> Int { boundary + levels[j].start - levels[j].size }
}
