// Prints the response of every filter node of a preset, band by band, and the whole chain
// as a small ASCII plot.
//
//   swift run PrintBandsExample Presets/podcast-voice.json [sampleRate]
import Foundation
import TimbreDSP
import TimbreEngine

let args = CommandLine.arguments.dropFirst()
guard let path = args.first else {
    FileHandle.standardError.write(Data("usage: PrintBandsExample PRESET.json [sampleRate]\n".utf8))
    exit(1)
}
let sampleRate = args.dropFirst().first.flatMap(Double.init) ?? 48000
let preset: Preset
do { preset = try PresetDecoder.decode(contentsOf: URL(fileURLWithPath: path)) } catch {
    FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
    exit(1)
}
let probes: [Double] = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
print("\(preset.name) at \(Int(sampleRate)) Hz")
func label(_ f: Double) -> String { f >= 1000 ? "\(Int(f / 1000))k" : (f == 31.5 ? "31.5" : String(Int(f))) }
print("node".padding(toLength: 22, withPad: " ", startingAt: 0)
      + probes.map { String(repeating: " ", count: 7 - label($0).count) + label($0) }.joined())
for term in preset.responseTerms(sampleRate: sampleRate) {
    for (k, s) in term.sections.enumerated() {
        let row = probes.map { String(format: "%7.2f", s.magnitudeDB(at: $0, sampleRate: sampleRate)) }.joined()
        print("\(term.path) §\(k)".padding(toLength: 22, withPad: " ", startingAt: 0) + row)
    }
}
print("chain".padding(toLength: 22, withPad: " ", startingAt: 0) + probes.map { String(format: "%7.2f", preset.magnitudeDB(at: $0, sampleRate: sampleRate)) }.joined())

// ASCII plot, 20 Hz–20 kHz, ±12 dB.
let width = 60, height = 13
var grid = [[Character]](repeating: [Character](repeating: " ", count: width), count: height)
for x in 0..<width {
    let f = 20 * pow(1000, Double(x) / Double(width - 1))
    let db = max(-12, min(12, preset.magnitudeDB(at: f, sampleRate: sampleRate)))
    let y = Int(((12 - db) / 24 * Double(height - 1)).rounded())
    grid[y][x] = "*"
}
for (i, row) in grid.enumerated() {
    let db = 12 - 24 * Double(i) / Double(height - 1)
    print(String(format: "%+5.0f dB |", db) + String(row))
}
print("         20 Hz" + String(repeating: " ", count: width - 20) + "20 kHz")
