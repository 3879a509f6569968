import Foundation
import Testing
import TimbreEngine
import TimbreFile

/// A WAV take past 4 GiB: written as RF64 with libsndfile's auto-downgrade, it must become an
/// RF64 file whose 64-bit sizes hold every frame (a plain WAV's 32-bit sizes cannot). The test
/// feeds the take's ring from this thread (in place of JACK's) 537 million stereo float frames
/// — 4.0 GiB plus 8 MiB — waiting whenever the ring is half full, then reads the file back.
struct TakeRecorderTests {
    @Test func wavTakeBecomesRF64PastFourGiB() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-rf64-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/big.wav"
        let take = try TakeRecorder(.init(path: path, format: .wav, encoding: .float, sampleRate: 48_000, channelCount: 2))
        let block = 8192
        let total = (1 << 29) + (1 << 20)  // 4 GiB of stereo float is 2^29 frames
        let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { buffers.forEach { $0.deallocate() } }
        let channels = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
        defer { channels.deallocate() }
        channels[0] = buffers[0]; channels[1] = buffers[1]
        take.record()
        let start = Date()
        var sent = 0
        while sent < total {
            let n = min(block, total - sent)
            // A ramp that names its frame (mod 2^20), so the end can be checked.
            for i in 0..<n { let v = Float((sent + i) & 0xFFFFF) / Float(1 << 20); buffers[0][i] = v; buffers[1][i] = -v }
            while take.tap.framesWaiting > take.tap.capacity / 2 { usleep(1_000) }
            take.tap.capture(channels, frameCount: n)
            sent += n
        }
        let status = take.stop()
        let seconds = Date().timeIntervalSince(start)
        let repair = try WaveFileRepair(path: path)
        let reader = try SoundFileReader(path: path)
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("WAV take past 4 GiB: \(status.frames) frames, \(bytes) bytes in \(String(format: "%.1f", seconds)) s; container \(repair.container.rawValue), sizes right: \(repair.isIntact); libsndfile reads \(reader.frameCount) frames; overruns \(status.overruns)")
        #expect(status.overruns == 0 && status.frames == Int64(total))
        #expect(repair.container == .rf64 && repair.isIntact && repair.frames == Int64(total))
        #expect(reader.frameCount == Int64(total))
    }
}
