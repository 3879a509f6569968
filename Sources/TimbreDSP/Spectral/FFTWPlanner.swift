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

    static func destroy(_ plan: fftwf_plan) {
        lock.lock(); defer { lock.unlock() }
        fftwf_destroy_plan(plan)
    }
}
