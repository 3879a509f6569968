import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The FFTW analyser against a naive DFT computed here, and its calibration on sines and noise.
@Suite struct SpectrumAnalyzerTests {
    static func analyse(_ x: [Float], rate: Double = 48000, size: Int, window: SpectrumWindow, averaging: Double = .infinity, block: Int = 1000) -> SpectrumAnalyzer {
        let a = SpectrumAnalyzer(size: size, sampleRate: rate, window: window, overlap: 0.5, averagingSeconds: averaging)
        Signals.forEachBlock([x], size: block) { p, k, _ in a.process(p, frameCount: k) }
        return a
    }

    /// Every window's bins near a 997 Hz sine equal a naive windowed DFT of the last frame,
    /// scaled as documented, within 0.01 dB.
    @Test(arguments: SpectrumWindow.allCases)
    func binsMatchNaiveDFT(window: SpectrumWindow) {
        let n = 4096
        let x = Signals.sine(n, hz: 997, amplitude: 0.8)
        let a = Self.analyse(x, size: n, window: window, averaging: 0)
        let w = window.values(size: n).map(Double.init)
        let sum = w.reduce(0, +)
        var worst = 0.0
        for k in 80...90 {
            var re = 0.0, im = 0.0
            for t in 0..<n {
                let ph = -2 * Double.pi * Double(k * t) / Double(n)
                re += Double(x[t]) * w[t] * cos(ph); im += Double(x[t]) * w[t] * sin(ph)
            }
            let naive = 20 * log10(2 * (re * re + im * im).squareRoot() / sum)
            worst = max(worst, abs(a.levelDB(bin: k) - naive))
        }
        #expect(worst < 0.01, "\(window): \(worst) dB")
    }

    /// The main-lobe shape the peak refinement fits equals the window's own transform, summed
    /// here term by term (|Σ w[n]·e^(−j2πxn/N)| / Σ w), from −2.5 to 2.5 bins in 0.01-bin steps,
    /// within 1e-5 (the N → ∞ form against N = 2048).
    @Test(arguments: SpectrumWindow.allCases)
    func mainLobeMatchesTheWindowsTransform(window: SpectrumWindow) {
        let n = 2048
        let w = window.values(size: n).map(Double.init)
        let sum = w.reduce(0, +)
        var worst = 0.0
        for i in -250...250 {
            let x = Double(i) / 100
            var re = 0.0, im = 0.0
            for t in 0..<n {
                // Centred on the window's middle, as a sine's lobe is symmetric.
                let ph = -2 * Double.pi * x * Double(t - n / 2) / Double(n)
                re += w[t] * cos(ph); im += w[t] * sin(ph)
            }
            worst = max(worst, abs(window.mainLobe(atBinOffset: x) - (re * re + im * im).squareRoot() / sum))
        }
        #expect(worst < 1e-5, "\(window): \(worst)")
    }

    /// A 997 Hz sine: Hann finds it within 0.5 Hz; flat-top reads its level (−6 dBFS) within 0.1 dB.
    @Test func sineFrequencyAndLevel() {
        let x = Signals.sine(48000 * 2, hz: 997, amplitude: 0.5)
        let hann = Self.analyse(x, size: 8192, window: .hann)
        let flat = Self.analyse(x, size: 8192, window: .flatTop)
        print(String(format: "997 Hz at -6.02 dBFS: Hann peak %.3f Hz; flat-top level %.3f dBFS", hann.peak.frequencyHz, flat.peak.levelDB))
        #expect(abs(hann.peak.frequencyHz - 997) <= 0.5)
        #expect(abs(flat.peak.levelDB - 20 * log10(0.5)) <= 0.1)
        // And at frequencies between bins, for every window's level-reading ability:
        for hz in [1000.0, 1002.93, 4321.7] {
            let y = Self.analyse(Signals.sine(48000, hz: hz, amplitude: 1), size: 8192, window: .flatTop)
            #expect(abs(y.peak.levelDB) <= 0.1, "\(hz) Hz: \(y.peak.levelDB) dBFS")
        }
    }

    /// White noise averaged over 30 s: third-octave band power per hertz is flat within 1 dB
    /// from 25 Hz to 16 kHz, and the bands' power sums to the noise's mean square.
    @Test func whiteNoiseIsFlatInThirdOctaves() {
        let x = Signals.noise(48000 * 30, amplitude: 0.5, seed: 12)
        let a = Self.analyse(x, size: 16384, window: .hann)
        let bands = a.bands(fraction: 3).filter { $0.centerHz >= 25 && $0.centerHz <= 16000 }
        let density = bands.map { $0.levelDB - 10 * log10($0.upperHz - $0.lowerHz) }
        let mean = density.reduce(0, +) / Double(density.count)
        let spread = density.map { abs($0 - mean) }.max() ?? 99
        print(String(format: "White noise, %d third-octave bands 25 Hz–16 kHz: power per Hz within ±%.2f dB", bands.count, spread))
        #expect(spread <= 1)
        // Expected density: uniform noise in ±0.5 has mean square 1/12 spread over fs/2.
        #expect(abs(mean - 10 * log10((1.0 / 12) / 24000)) < 0.2, "calibrated: \(mean)")
    }

    /// Frames sit at absolute positions: block sizes do not change the result.
    @Test func blockSizeDoesNotMatter() {
        let x = Signals.noise(48000, amplitude: 0.5, seed: 3)
        let a = Self.analyse(x, size: 1024, window: .hann, averaging: 0.5, block: 1)
        let b = Self.analyse(x, size: 1024, window: .hann, averaging: 0.5, block: 4096)
        #expect(a.levelsDB() == b.levelsDB() && a.frames == b.frames)
    }
}
