import CFFTW
import Foundation

/// Impulse responses prepared for ``PartitionedConvolver``: the head taps (reversed, for the
/// direct-form dot product) and every partition's spectrum, computed once and shared by every
/// kernel (every channel, every plan) that uses them. Immutable after `init`; a kernel reads
/// it through raw pointers, so the audio thread counts no reference; it is freed with its last
/// owner, off the audio thread.
///
/// Memory: per response, `headTaps` floats plus, per level, `count × (size + 1)` complex
/// floats — about 2 × 4 bytes per tap (a 10 s stereo response at 48 kHz: 7.7 MB).
public final class ConvolutionFilter: @unchecked Sendable {
    public let layout: PartitionLayout
    public let responseCount: Int
    /// Per response `headTaps` floats, last tap first.
    let head: UnsafeMutablePointer<Float>
    /// Per level: per response, `count` spectra of `size + 1` complex values (interleaved re,
    /// im), scaled by 1 / (2 × size) for FFTW's unnormalised inverse.
    let spectra: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// Prepares `responses` (each up to the layout's length; shorter ones end in zeros).
    public init(responses: [[Float]], layout: PartitionLayout) {
        precondition(!responses.isEmpty && responses.allSatisfy { $0.count <= layout.length })
        self.layout = layout
        responseCount = responses.count
        let b = layout.headTaps
        head = .allocate(capacity: max(1, responses.count * b))
        head.initialize(repeating: 0, count: max(1, responses.count * b))
        for (r, h) in responses.enumerated() {
            for m in 0..<min(b, h.count) { head[r * b + (b - 1 - m)] = h[m] }
        }
        spectra = .allocate(capacity: max(1, layout.levels.count))
        for (j, level) in layout.levels.enumerated() {
            let n = level.size, bins = n + 1, perResponse = level.count * 2 * bins
            let storage = fftwf_alloc_real(max(1, responses.count * perResponse))!
            storage.initialize(repeating: 0, count: responses.count * perResponse)
            let time = fftwf_alloc_real(2 * n)!, freq = fftwf_alloc_complex(bins)!
            defer { fftwf_free(time); fftwf_free(freq) }
            let plan = FFTWPlanner.realForward(size: 2 * n, input: time, output: freq)
            defer { FFTWPlanner.destroy(plan) }
            let scale = 1 / Float(2 * n)
            for (r, h) in responses.enumerated() {
                for k in 0..<level.count {
                    let from = level.start + k * n
                    time.update(repeating: 0, count: 2 * n)
                    if from < h.count { for m in 0..<min(n, h.count - from) { time[m] = h[from + m] * scale } }
                    fftwf_execute(plan)
                    let out = storage + r * perResponse + k * 2 * bins
                    UnsafeMutableRawPointer(out).copyMemory(from: freq, byteCount: bins * MemoryLayout<fftwf_complex>.stride)
                }
            }
            (spectra + j).initialize(to: storage)
        }
    }

    deinit {
        head.deallocate()
        for j in 0..<layout.levels.count { fftwf_free(spectra[j]) }
        spectra.deallocate()
    }

    /// Bytes held for the spectra and the head.
    public var memoryBytes: Int {
        responseCount * (layout.headTaps + layout.levels.reduce(0) { $0 + $1.count * 2 * ($1.size + 1) }) * MemoryLayout<Float>.size
    }
}
