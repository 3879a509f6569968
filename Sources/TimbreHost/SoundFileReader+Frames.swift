import Foundation
import TimbreFile

extension SoundFileReader {
    /// `count` frames from frame `first` (fewer at the file's end), one array per channel.
    func frames(from first: Int64, count: Int) throws(HostError) -> [[Float]] {
        do { try seek(to: first) } catch { throw .io(error.description) }
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1) * channelCount)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        defer { storage.deallocate(); pointers.deallocate() }
        var done = 0
        while done < count {
            for c in 0..<channelCount { pointers[c] = storage + c * count + done }
            let n: Int
            do { n = try read(into: pointers, maxFrames: count - done) } catch { throw .io(error.description) }
            if n == 0 { break }
            done += n
        }
        return (0..<channelCount).map { Array(UnsafeBufferPointer(start: storage + $0 * count, count: done)) }
    }
}
