import Foundation
import Testing
import TimbreDSP

/// The FFTW-backed spectrum against a naive DFT computed here.
@Suite struct FFTSpectrumTests {
    @Test func matchesNaiveDFT() {
        let n = 512
        let x = Reference.noise(count: n)
        let fft = FFTSpectrum(size: n)
        let mags = fft.magnitudes(of: x)
        #expect(mags.count == n / 2 + 1)
        for k in [0, 1, 17, 100, 255, 256] {
            var re = 0.0, im = 0.0
            for t in 0..<n {
                let a = -2 * Double.pi * Double(k * t) / Double(n)
                re += Double(x[t]) * cos(a); im += Double(x[t]) * sin(a)
            }
            let ref = (re * re + im * im).squareRoot()
            #expect(abs(Double(mags[k]) - ref) <= 1e-4 * max(1, ref), "bin \(k)")
        }
        #expect(FFTSpectrum.fftwVersion.hasPrefix("fftw-3"))
    }
}
