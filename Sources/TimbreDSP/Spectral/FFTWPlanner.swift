import CFFTW
import Foundation

/// FFTW's planner is not thread-safe (only `fftw_execute` is: FFTW manual §5.4,
/// "Thread safety"), so every plan is made and destroyed under one lock. Planning happens on
/// control threads only; the lock is never taken on the render path.
enum FFTWPlanner {
    static let lock = NSLock()

    static func realForward(size: Int, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<fftwf_complex>) -> fftwf_plan {
        lock.lock(); defer { lock.unlock() }
        return fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
    }

    static func realInverse(size: Int, input: UnsafeMutablePointer<fftwf_complex>, output: UnsafeMutablePointer<Float>) -> fftwf_plan {
        lock.lock(); defer { lock.unlock() }
        return fftwf_plan_dft_c2r_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
    }

    /// An out-of-place complex Double transform of `size` points (`size` interleaved re/im
    /// pairs each side), FFTW_ESTIMATE: the same plan in every process, so output is reproducible.
    static func complexDouble(size: Int, from input: UnsafeMutablePointer<Double>, to output: UnsafeMutablePointer<Double>,
                              forward: Bool) -> fftw_plan {
        lock.lock(); defer { lock.unlock() }
        return fftw_plan_dft_1d(Int32(size), UnsafeMutablePointer<fftw_complex>(OpaquePointer(input)),
                                UnsafeMutablePointer<fftw_complex>(OpaquePointer(output)),
                                forward ? FFTW_FORWARD : FFTW_BACKWARD, UInt32(FFTW_ESTIMATE))!
    }

    static func destroyDouble(_ plan: fftw_plan) {
        lock.lock(); defer { lock.unlock() }
        fftw_destroy_plan(plan)
    }

    static func destroy(_ plan: fftwf_plan) {
        lock.lock(); defer { lock.unlock() }
        fftwf_destroy_plan(plan)
    }
}
