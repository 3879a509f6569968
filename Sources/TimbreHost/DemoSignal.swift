import Foundation

/// The demo's synthetic "music": a I–V–vi–IV progression of soft saw-like chords, a sine
/// bass, a kick on every beat and noise hi-hats on the off-beats, panned apart, at −6 dBFS
/// peak. Deterministic (fixed-seed noise), so every run writes the same file.
package enum DemoSignal {
    package static func stereo(seconds: Double, sampleRate: Double) -> (left: [Float], right: [Float]) {
        let n = Int(seconds * sampleRate)
        var left = [Float](repeating: 0, count: n), right = [Float](repeating: 0, count: n)
        let chords: [[Double]] = [[261.63, 329.63, 392.0], [196.0, 246.94, 293.66], [220.0, 261.63, 329.63], [174.61, 220.0, 261.63]]
        let bass: [Double] = [65.41, 49.0, 55.0, 43.65]
        let beat = 0.5  // 120 bpm
        var seed: UInt32 = 12345
        var phase = [Double](repeating: 0, count: 4)
        var bassPhase = 0.0
        for i in 0..<n {
            let t = Double(i) / sampleRate
            let bar = Int(t / (4 * beat)) % 4
            let tb = t.truncatingRemainder(dividingBy: beat)
            var chord = 0.0
            for (k, f) in chords[bar].enumerated() {
                phase[k] += f / sampleRate
                let p = phase[k] - phase[k].rounded(.down)
                // Three harmonics: a soft saw.
                chord += sin(2 * .pi * p) + 0.5 * sin(4 * .pi * p) + 0.33 * sin(6 * .pi * p)
            }
            bassPhase += bass[bar] / sampleRate
            let b = sin(2 * .pi * bassPhase) * 0.8
            let kickEnv = exp(-tb * 18)
            let kick = sin(2 * .pi * (50 * tb + 60 * (1 - exp(-tb * 30)) / 30)) * kickEnv
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Double(Int32(bitPattern: seed)) / Double(Int32.max)
            let offBeat = (t + beat / 2).truncatingRemainder(dividingBy: beat)
            let hat = noise * exp(-offBeat * 60) * 0.35
            let c = chord * 0.08
            left[i] = Float(0.5 * (c * 1.1 + b * 0.35 + kick * 0.5 + hat * 0.4))
            right[i] = Float(0.5 * (c * 0.9 + b * 0.35 + kick * 0.5 + hat * 1.0))
        }
        return (left, right)
    }
}
