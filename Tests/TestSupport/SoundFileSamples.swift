import Foundation
import TimbreFile

/// Every frame of a sound file as libsndfile reads it, planar (the recording and repair tests').
public enum SoundFileSamples {
    public static func read(_ path: String) throws -> [[Float]] {
        let reader = try SoundFileReader(path: path)
        let frames = Int(reader.frameCount), channels = reader.channelCount
        let planar = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: max(frames, 1)) }
        defer { planar.forEach { $0.deallocate() } }
        let got = frames == 0 ? 0 : try planar.withUnsafeBufferPointer { try reader.read(into: $0.baseAddress!, maxFrames: frames) }
        return planar.map { Array(UnsafeBufferPointer(start: $0, count: got)) }
    }
}
