import Foundation
import TimbreDSP
import TimbreEngine

/// The file side of a `player` channel: reads the file's region and loops, changes the rate
/// (time-stretch or varispeed) and converts to the graph's rate with the high-quality
/// resampler, and keeps the ``PlayerState``'s ring filled. Offline the renderer calls
/// ``fill()`` before every block; live a prefetch thread does.
package final class PlayerFeeder: PlayerStreamControl {
    /// The state this feeder fills (it holds the feeder; this reference does not hold it).
    package unowned let state: PlayerState
    package let region: RegionLoopSource
    /// The rate change and conversion after the region (rebuilt fresh at a seek: they hold state).
    let makeStream: (FrameSource, PlayerSpec) throws(AudioFileError) -> FrameSource
    /// The settings the stream is built with (the file side's copy).
    private var spec: PlayerSpec
    var stream: FrameSource
    let staging: PlanarStaging
    static let chunkFrames = 4096
    package private(set) var ended = false
    private let lock = NSLock()
    private var pendingSeek: Double?
    private var pendingSpec: PlayerSpec?

    init(state: PlayerState, region: RegionLoopSource,
         makeStream: @escaping (FrameSource, PlayerSpec) throws(AudioFileError) -> FrameSource) throws(AudioFileError) {
        self.state = state; self.region = region; self.makeStream = makeStream
        spec = state.spec
        stream = try makeStream(region, spec)
        staging = PlanarStaging(channelCount: state.channelCount, capacity: Self.chunkFrames)
    }

    /// Asks for a seek to `fileSeconds` (clamped to the region); carried out by the next ``fill()``.
    package func requestSeek(fileSeconds: Double) {
        lock.lock(); pendingSeek = fileSeconds; lock.unlock()
    }

    /// Asks for new `rate`, `rateMode` or `loops` from `fileSeconds` on (a live `set`): the
    /// stream is rebuilt there, as at a seek.
    package func requestChange(to newSpec: PlayerSpec, fileSeconds: Double) {
        lock.lock(); pendingSpec = newSpec; pendingSeek = fileSeconds; lock.unlock()
    }

    /// Writes the stream into the ring until the ring is full or the stream ended; first
    /// carries out a requested seek: the file is sought to the exact frame, the rate and
    /// conversion stages start afresh, and the ring is cut there (``PlayerState/beginCut(fileSeconds:)``).
    /// Returns the frames written. `maxChunks`: at most this many reads of 4096 frames (so a
    /// prefetch thread serves every player in turn and notices when it should stop);
    /// `chunkDelay`: a test hook, a pause before every chunk read (a slow disk).
    @discardableResult
    package func fill(maxChunks: Int = .max, chunkDelay: TimeInterval = 0) throws(AudioFileError) -> Int {
        lock.lock(); let seek = pendingSeek, newSpec = pendingSpec; pendingSeek = nil; pendingSpec = nil; lock.unlock()
        if let newSpec { spec = newSpec; region.loops = newSpec.loops }
        if let seek {
            let fs = region.reader.sampleRate
            var frame = max(Int64((seek * fs).rounded()), region.start)
            if frame >= region.end { frame = region.start + (frame - region.start) % (region.end - region.start) }  // past a loop point
            try region.reposition(to: frame)
            stream = try makeStream(region, spec)
            ended = false
            state.beginCut(fileSeconds: Double(frame) / fs)
        }
        var written = 0, chunks = 0
        while !ended && chunks < maxChunks {
            let room = state.ring.freeFrames
            if room == 0 { break }
            if chunkDelay > 0 { Thread.sleep(forTimeInterval: chunkDelay) }
            let n = try stream.read(into: staging.pointers, maxFrames: min(room, Self.chunkFrames))
            chunks += 1
            if n == 0 {
                ended = true
                state.markEnd(atFrame: state.ring.framesWritten)
                break
            }
            state.ring.write(staging.pointers, frameCount: n)
            written += n
        }
        return written
    }

    /// Ends the stream where it is (after a read error): the player finishes with what was read.
    package func abandon() {
        guard !ended else { return }
        ended = true
        state.markEnd(atFrame: state.ring.framesWritten)
    }

    /// A ``HostServices/makePlayer`` factory: relative file names are found in
    /// `directory` (the preset's folder), else the working directory. A file that cannot be
    /// opened or played is a ``PresetError`` at the player's JSON path.
    package static func factory(directory: String?) -> (PlayerSpec, String, Double, Int) throws(PresetError) -> PlayerState {
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
                let makeStream = { (source: FrameSource, spec: PlayerSpec) throws(AudioFileError) -> FrameSource in
                    var stream = source
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
                    return stream
                }
                let state = PlayerState(spec: spec, channelCount: reader.channelCount, sampleRate: sampleRate,
                                        maxBlockFrames: maxBlockFrames, ringFrames: max(4 * maxBlockFrames, Int(2 * sampleRate)))
                let feeder = try PlayerFeeder(state: state, region: region, makeStream: makeStream)
                state.feeder = feeder
                try feeder.fill()
                return state
            } catch {
                throw PresetError(path: path + ".file", "\(error)")
            }
        }
    }

    /// `name` as given when absolute, else inside `directory` (or the working directory).
    package static func resolve(_ name: String, directory: String?) -> String {
        if name.hasPrefix("/") { return name }
        guard let directory else { return name }
        return URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }
}

extension HostServices {
    /// Services for a host that reads files: `player` channels stream their files and `fir`
    /// and `convolver` nodes read theirs (relative names found in `directory`, the preset's
    /// folder, else the working directory), and `plugins` loads `plugin` nodes (TimbrePlugins'
    /// `PluginHost.loader`) if given.
    package static func files(in directory: String?, plugins: PluginLoader? = nil) -> HostServices {
        HostServices(makePlayer: PlayerFeeder.factory(directory: directory), plugins: plugins, files: .files(in: directory))
    }
}
