import Foundation
import TimbreDSP
import TimbreEngine

/// The file side of a `player` channel: reads the file's region and loops, changes the rate
/// (time-stretch or varispeed) and converts to the graph's rate with the high-quality
/// resampler, and keeps the ``PlayerState``'s ring filled. Offline the renderer calls
/// ``fill()`` before every block; live a prefetch thread does.
public final class PlayerFeeder {
    /// The state this feeder fills (it holds the feeder; this reference does not hold it).
    public unowned let state: PlayerState
    public let region: RegionLoopSource
    let stream: FrameSource
    let staging: PlanarStaging
    static let chunkFrames = 4096
    public private(set) var ended = false

    init(state: PlayerState, region: RegionLoopSource, stream: FrameSource) {
        self.state = state; self.region = region; self.stream = stream
        staging = PlanarStaging(channelCount: state.channelCount, capacity: Self.chunkFrames)
    }

    /// Writes the stream into the ring until the ring is full or the stream ended.
    public func fill() throws(AudioFileError) {
        while !ended {
            let room = state.ring.freeFrames
            if room == 0 { return }
            let n = try stream.read(into: staging.pointers, maxFrames: min(room, Self.chunkFrames))
            if n == 0 {
                ended = true
                state.markEnd(atFrame: state.ring.framesWritten)
                return
            }
            state.ring.write(staging.pointers, frameCount: n)
        }
    }

    /// Ends the stream where it is (after a read error): the player finishes with what was read.
    public func abandon() {
        guard !ended else { return }
        ended = true
        state.markEnd(atFrame: state.ring.framesWritten)
    }

    /// A ``SharedNodeStates/makePlayer`` factory: relative file names are found in
    /// `directory` (the preset's folder), else the working directory. A file that cannot be
    /// opened or played is a ``PresetError`` at the player's JSON path.
    public static func factory(directory: String?) -> (PlayerSpec, String, Double, Int) throws(PresetError) -> PlayerState {
        { (spec: PlayerSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PlayerState in
            let file = resolve(spec.file, directory: directory)
            do {
                let reader = try SoundFileReader(path: file)
                let fs = reader.sampleRate
                guard (1...2).contains(reader.channelCount) else {
                    throw AudioFileError(path: file, "has \(reader.channelCount) channels; a player takes mono or stereo files")
                }
                let region = try RegionLoopSource(reader: reader, start: Int64((spec.start * fs).rounded()), end: spec.end.map { Int64(($0 * fs).rounded()) },
                                                  offset: Int64((spec.offset * fs).rounded()), loops: spec.loops)
                var stream: FrameSource = region
                if spec.rate != 1 {
                    switch spec.rateMode {
                    case .timestretch:
                        stream = StretchingStage(upstream: stream, sampleRate: fs, rate: spec.rate, maximumFrames: chunkFrames)
                    case .varispeed:
                        let speed = RationalRatio(approximating: spec.rate, limit: 1000)
                        guard let stage = ResamplingStage(upstream: stream, ratio: RationalRatio(speed.downsampling, speed.upsampling),
                                                          quality: .high, maximumFrames: chunkFrames) else {
                            throw AudioFileError(path: file, "cannot play at rate \(spec.rate) (filter table too large)")
                        }
                        stream = stage
                    }
                }
                if Int(fs) != Int(sampleRate) {
                    guard let stage = ResamplingStage(upstream: stream, ratio: RationalRatio(inputRate: Int(fs), outputRate: Int(sampleRate)),
                                                      quality: .high, maximumFrames: chunkFrames) else {
                        throw AudioFileError(path: file, "cannot convert \(Int(fs)) Hz to \(Int(sampleRate)) Hz (filter table too large)")
                    }
                    stream = stage
                }
                let state = PlayerState(spec: spec, channelCount: reader.channelCount, sampleRate: sampleRate,
                                        maxBlockFrames: maxBlockFrames, ringFrames: max(4 * maxBlockFrames, Int(2 * sampleRate)))
                let feeder = PlayerFeeder(state: state, region: region, stream: stream)
                state.feeder = feeder
                try feeder.fill()
                return state
            } catch {
                throw PresetError(path: path + ".file", "\(error)")
            }
        }
    }

    /// `name` as given when absolute, else inside `directory` (or the working directory).
    public static func resolve(_ name: String, directory: String?) -> String {
        if name.hasPrefix("/") { return name }
        guard let directory else { return name }
        return URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }
}
