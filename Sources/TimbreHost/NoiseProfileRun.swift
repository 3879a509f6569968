import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

/// `timbre noise-profile` as a library: a ``NoiseProfile`` learned from a stretch of a file
/// (given, or the quietest half second, found), for a `denoise` node's `profile`.
package struct NoiseProfileRun {
    package let profile: NoiseProfile
    /// The stretch learned from, seconds.
    package let start: Double
    package let end: Double
    /// Whether the stretch was found (the quietest) rather than given.
    package let found: Bool
    /// The stretch's RMS level, dBFS.
    package let levelDB: Double

    /// The length of a found stretch, seconds.
    package static let foundSeconds = 0.5

    package init(path: String, start: Double?, end: Double?) throws(HostError) {
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: path) } catch { throw .io(error.description) }
        let rate = reader.sampleRate, total = Double(reader.frameCount) / rate
        var region: (Double, Double)
        if start != nil || end != nil {
            let s = start ?? 0, e = end ?? total
            guard s >= 0, e <= total + 1e-9, e > s else {
                throw .usage("--start \(s) --end \(e) is not a stretch of \(path) (0…\(String(format: "%.3f", total)) s)")
            }
            region = (s, e)
        } else {
            region = try Self.quietest(reader)
        }
        let first = Int64((region.0 * rate).rounded()), count = Int((region.1 - region.0) * rate)
        let size = SpectralDenoiser.windowLength(sampleRate: rate)
        guard count >= size else {
            throw .usage("\(path): \(String(format: "%.3f", region.1 - region.0)) s is shorter than one analysis window (\(size) frames, \(String(format: "%.1f", Double(size) / rate * 1000)) ms)")
        }
        let channels = try reader.frames(from: first, count: count)
        guard let profile = NoiseProfile.learn(from: channels, sampleRate: rate) else { throw .io("\(path): no noise profile learned") }
        let power = channels.reduce(0.0) { $0 + $1.reduce(0.0) { $0 + Double($1) * Double($1) } } / Double(channels.count * count)
        self.profile = profile; self.start = region.0; self.end = region.1; found = start == nil && end == nil
        levelDB = 10 * log10(max(power, 1e-30))
    }

    /// The quietest `foundSeconds` of the file (RMS over every channel, in 50 ms steps).
    static func quietest(_ reader: SoundFileReader) throws(HostError) -> (Double, Double) {
        let rate = reader.sampleRate, step = max(1, Int(0.05 * rate)), span = Int((foundSeconds / 0.05).rounded())
        var energies: [Double] = []
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: step * reader.channelCount)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
        defer { storage.deallocate(); pointers.deallocate() }
        for c in 0..<reader.channelCount { pointers[c] = storage + c * step }
        while true {
            let n: Int
            do { n = try reader.read(into: pointers, maxFrames: step) } catch { throw .io(error.description) }
            if n < step { break }
            var e = 0.0
            for c in 0..<reader.channelCount { for i in 0..<n { e += Double(pointers[c][i]) * Double(pointers[c][i]) } }
            energies.append(e)
        }
        guard energies.count >= span else {
            throw .usage("\(reader.path): shorter than \(foundSeconds) s; give --start and --end")
        }
        var sum = energies[0..<span].reduce(0, +), best = (sum, 0)
        for k in span..<energies.count {
            sum += energies[k] - energies[k - span]
            if sum < best.0 { best = (sum, k - span + 1) }
        }
        // Digital silence (a file's padding) is not noise.
        guard best.0 > 0 else { throw .usage("\(reader.path): its quietest \(foundSeconds) s is digital silence; give --start and --end") }
        let s = Double(best.1 * step) / rate
        return (s, s + foundSeconds)
    }

    /// The profile as the JSON file a `denoise` node's `profile` names.
    package var fileText: String { profile.json.jsonText + "\n" }

    package var summary: String {
        String(format: "noise profile from %.3f–%.3f s%@, %.1f dBFS RMS, %d bins", start, end, found ? " (the quietest \(Self.foundSeconds) s)" : "",
               levelDB, profile.frequencies.count)
    }
}
