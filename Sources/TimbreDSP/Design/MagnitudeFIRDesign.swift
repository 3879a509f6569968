import CFFTW
import Foundation

/// FIR filters designed from a magnitude response (an AutoEQ GraphicEQ curve, a target), by
/// frequency sampling on a dense grid, in linear or minimum phase.
///
/// ```
/// |H(f_k)| on M ≥ 8·L bins ──┬─ linear:  h = IDFT(|H|) (zero phase), centred, × Blackman window, L odd
///                            └─ minimum: c = IDFT(ln|H|), folded (c₀, 2c₁ … 2c_{M/2−1}, c_{M/2}, 0 …),
///                                        h = IDFT(exp(DFT(c))), first L taps, last eighth faded
/// ```
///
/// Linear phase: a symmetric filter delaying everything by (L − 1)/2 samples, with pre-ringing
/// before transients; its magnitude is the target smoothed by the window (about 2.9·fs/L Hz
/// wide, Blackman). Minimum phase: the homomorphic method (Oppenheim & Schafer, *Discrete-Time
/// Signal Processing*, §13.9; J. O. Smith, *Spectral Audio Signal Processing*, "Minimum-Phase
/// Filter Design"): no pre-ringing and the least delay a filter with this magnitude can have,
/// its energy at the start; the dense grid keeps the cepstrum's time aliasing small. Designed
/// in Double with FFTW (control thread only).
public enum MagnitudeFIRDesign {
    public enum Phase: String, CaseIterable, Sendable {
        case linear, minimum
    }

    /// The taps a design of `length` gives with `phase` (linear phase uses an odd length).
    public static func tapCount(_ length: Int, phase: Phase) -> Int { phase == .linear ? length | 1 : length }

    /// The delay in samples a linear-phase design adds ((L − 1)/2); 0 for minimum phase.
    public static func latency(_ length: Int, phase: Phase) -> Int { phase == .linear ? (tapCount(length, phase: phase) - 1) / 2 : 0 }

    /// A filter of `length` taps (odd: rounded up for linear phase) whose magnitude follows
    /// `magnitudeDB(f)` (dB at f Hz, 0…fs/2) at `sampleRate`.
    public static func design(length: Int, sampleRate: Double, phase: Phase, magnitudeDB: (Double) -> Double) -> [Float] {
        precondition(length >= 2)
        let taps = tapCount(length, phase: phase)
        var m = 1
        while m < 8 * taps { m *= 2 }
        let half = m / 2
        // The target on the grid, as a real even spectrum.
        var target = [Double](repeating: 0, count: half + 1)
        for k in 0...half { target[k] = magnitudeDB(Double(k) * sampleRate / Double(m)) }
        // FFTW's own (SIMD-aligned) buffers: a plan made on memory of another alignment may
        // take other codelets, and so round differently from one process to the next.
        let work = fftw_alloc_real(2 * m)!, out = fftw_alloc_real(2 * m)!
        defer { fftw_free(work); fftw_free(out) }
        let inverse = FFTWPlanner.complexDouble(size: m, from: work, to: out, forward: false)
        let forward = FFTWPlanner.complexDouble(size: m, from: work, to: out, forward: true)
        defer { FFTWPlanner.destroyDouble(inverse); FFTWPlanner.destroyDouble(forward) }
        func fillEven(_ value: (Int) -> Double) {
            for k in 0..<m {
                let bin = k <= half ? k : m - k
                work[2 * k] = value(bin); work[2 * k + 1] = 0
            }
        }
        var h = [Float](repeating: 0, count: taps)
        switch phase {
        case .linear:
            fillEven { pow(10, target[$0] / 20) }
            fftw_execute(inverse)
            let centre = (taps - 1) / 2
            for n in 0..<taps {
                let t = n - centre, at = (t + m) % m
                // Blackman window over the taps.
                let x = 2 * Double.pi * Double(n) / Double(taps - 1)
                let w = 0.42 - 0.5 * cos(x) + 0.08 * cos(2 * x)
                h[n] = Float(out[2 * at] / Double(m) * w)
            }
        case .minimum:
            fillEven { target[$0] / 20 * log(10) }  // ln|H|
            fftw_execute(inverse)
            for n in 0..<m {
                let c = out[2 * n] / Double(m)
                work[2 * n] = n == 0 || n == half ? c : n < half ? 2 * c : 0
                work[2 * n + 1] = 0
            }
            fftw_execute(forward)
            for k in 0..<m {
                let magnitude = exp(out[2 * k]), angle = out[2 * k + 1]
                work[2 * k] = magnitude * cos(angle); work[2 * k + 1] = magnitude * sin(angle)
            }
            fftw_execute(inverse)
            let fade = max(1, taps / 8)
            for n in 0..<taps {
                let fromEnd = taps - 1 - n
                let w = fromEnd >= fade ? 1 : 0.5 - 0.5 * cos(Double.pi * Double(fromEnd) / Double(fade))
                h[n] = Float(out[2 * n] / Double(m) * w)
            }
        }
        return h
    }
}
