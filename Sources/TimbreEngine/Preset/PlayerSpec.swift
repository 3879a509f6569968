import TimbreDSP

/// A graph channel's `player` source: a file played AVAudioPlayer-style.
///
/// ```json
/// {"id": "backing", "player": {"file": "backing.flac", "rate": 1, "rateMode": "timestretch",
///   "loops": 0, "start": 0, "end": 30, "offset": 0, "autoplay": true}}
/// ```
/// The region `start ..< end` (seconds of the file; `end` nil: the file's end) plays from
/// `offset` seconds into it, then `loops` more times from its start (−1: forever), at `rate`
/// (0.5…2; `timestretch` keeps the pitch, `varispeed` lets it follow). A file at another rate
/// than the graph is converted with the high-quality resampler; a mono file feeds a mono
/// channel (the channel's pan places it), a stereo file a stereo one.
public struct PlayerSpec: Sendable, Equatable {
    /// As written in the preset; a host resolves a relative path against the preset's folder.
    public var file: String
    public var rate: Double = 1
    public var rateMode: RateMode = .timestretch
    public var loops: Int = 0
    public var start: Double = 0
    public var end: Double?
    public var offset: Double = 0
    public var autoplay: Bool = true

    public init(file: String) { self.file = file }
}

extension Preset {
    /// The `player` channels of a graph preset, with their JSON paths (none for a chain).
    public var playerSpecs: [(spec: PlayerSpec, path: String)] {
        guard case .graph(let g) = form else { return [] }
        return g.channels.compactMap { ch in
            if case .player(let p) = ch.source { return (p, ch.path + ".player") }
            return nil
        }
    }
}
