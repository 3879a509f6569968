import CFFTW

/// FFT work buffers for one thread computing ``PartitionedConvolver`` levels: 2 × largest
/// time samples, then the transform and the sum (largest + 1 complex values each), all
/// FFTW-aligned like the buffers the plans were made on. Raw pointers: the owner (a kernel for
/// its render thread, a worker for itself) calls ``free()``.
struct ConvolutionScratch: @unchecked Sendable {
    let time: UnsafeMutablePointer<Float>
    let spectrum: UnsafeMutablePointer<Float>
    let sum: UnsafeMutablePointer<Float>

    /// Zeroed buffers for partitions up to `largest`.
    init(largest: Int) {
        let samples = max(2, 2 * largest), complex = max(2, 2 * (largest + 1))
        time = fftwf_alloc_real(samples)!
        spectrum = fftwf_alloc_real(complex)!
        sum = fftwf_alloc_real(complex)!
        time.initialize(repeating: 0, count: samples)
        spectrum.initialize(repeating: 0, count: complex)
        sum.initialize(repeating: 0, count: complex)
    }

    func free() { fftwf_free(time); fftwf_free(spectrum); fftwf_free(sum) }
}
