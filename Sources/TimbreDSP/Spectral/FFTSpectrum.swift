import CFFTW
import Foundation

/// Magnitude spectrum of a real signal through FFTW (single precision, `fftwf_plan_dft_r2c_1d`).
///
/// The plan and buffers are created in `init` (FFTW planning allocates and is not
/// real-time safe); `magnitudes(of:)` only executes the plan.
public final class FFTSpectrum {
    public let size: Int
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<fftwf_complex>
    let plan: fftwf_plan

    /// The FFTW version string, e.g. "fftw-3.3.10".
    public static var fftwVersion: String { String(cString: timbre_fftwf_version()) }

    public init(size: Int) {
        precondition(size >= 2)
        self.size = size
        input = fftwf_alloc_real(size)!
        output = fftwf_alloc_complex(size / 2 + 1)!
        plan = FFTWPlanner.realForward(size: size, input: input, output: output)
    }

    deinit {
        FFTWPlanner.destroy(plan)
        fftwf_free(input)
        fftwf_free(output)
    }

    /// |X[k]| for k = 0…size/2 of `signal` (zero-padded or truncated to `size`), unnormalised.
    public func magnitudes(of signal: [Float]) -> [Float] {
        for i in 0..<size { input[i] = i < signal.count ? signal[i] : 0 }
        fftwf_execute(plan)
        return (0...(size / 2)).map { k in
            let c = output[k]
            return (c.0 * c.0 + c.1 * c.1).squareRoot()
        }
    }
}
