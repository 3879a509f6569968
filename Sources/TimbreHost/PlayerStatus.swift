import Foundation
import TimbreEngine
import TimbreFile

/// Where each player is, as `status` shows it and as `finished`/`looped` events are derived
/// (control thread; reads only the players' atomics and constants).
package struct PlayerStatus {
    package let state: PlayerState
    package let id: String
    /// Seconds into the file (AVAudioPlayer's `currentTime`).
    package let currentTime: Double
    /// The file's length in seconds (AVAudioPlayer's `duration`).
    package let duration: Double
    package let finished: Bool
    /// Passes of the region begun after the first.
    package let passes: Int
    package let loopsLeft: Int
    package let underruns: Int
    package let rate: Double
    package let playing: Bool
    /// Seconds until the current pass of the region ends (a `looped` or `finished` event), at
    /// the playback rate; nil when not playing.
    package let secondsToPassEnd: Double?

    package init?(key: String, state: PlayerState) {
        guard let feeder = state.feeder as? PlayerFeeder else { return nil }
        self.state = state
        id = String(key.dropFirst("player:".count))
        let region = feeder.region
        let fileRate = region.reader.sampleRate
        let spec = state.spec
        let regionSeconds = Double(region.end - region.start) / fileRate
        // File seconds consumed since the stream's origin (its start, or the latest seek):
        // stream frames at the graph's rate × the playback rate.
        let origin = state.origin
        let consumed = Double(max(0, state.framesPlayed - origin.frame)) / state.sampleRate * spec.rate
        var into = origin.fileSeconds - Double(region.start) / fileRate + consumed
        // Whole passes, by division (a loop of subtractions grew with the hours a loop had played).
        var pass = 0
        if regionSeconds > 0 && into >= regionSeconds {
            pass = Int((into / regionSeconds).rounded(.down))
            if spec.loops >= 0 { pass = min(pass, spec.loops) }
            if into - Double(pass) * regionSeconds < 0 { pass -= 1 }  // rounding at a boundary, either way
            else if into - Double(pass + 1) * regionSeconds >= 0 && (spec.loops < 0 || pass < spec.loops) { pass += 1 }
            into -= Double(pass) * regionSeconds
        }
        finished = state.finished
        currentTime = min(Double(region.start) / fileRate + min(into, regionSeconds), Double(region.reader.frameCount) / fileRate)
        duration = Double(region.reader.frameCount) / fileRate
        passes = pass
        loopsLeft = spec.loops < 0 ? -1 : max(0, spec.loops - pass)
        underruns = state.underruns
        rate = spec.rate
        playing = state.playing
        secondsToPassEnd = playing && !finished && regionSeconds > 0 && spec.rate > 0 ? max(0, regionSeconds - min(into, regionSeconds)) / spec.rate : nil
    }

    package var json: JSONValue {
        .object(["currentTime": .number((currentTime * 1000).rounded() / 1000), "duration": .number((duration * 1000).rounded() / 1000),
                 "playing": .bool(playing && !finished), "rate": .number(rate), "loopsLeft": .number(Double(loopsLeft)),
                 "underrunFrames": .number(Double(underruns))])
    }

    /// The players of `engine`'s current plan.
    package static func all(_ engine: LiveEngine) -> [PlayerStatus] {
        engine.plan.playerStates.compactMap { PlayerStatus(key: $0.key, state: $0.state) }
    }
}

/// Turns player positions into `looped` and `finished` lines, each once.
package struct PlayerEvents {
    package init() {}
    private var passesSeen: [String: Int] = [:]
    private var finishedSeen: Set<String> = []
    private var underrunsSeen: [String: Int] = [:]
    private var lastUnderrunLine = Date.distantPast

    package mutating func events(_ players: [PlayerStatus]) -> [String] {
        var lines: [String] = []
        for p in players {
            if p.passes > passesSeen[p.id, default: 0] {
                passesSeen[p.id] = p.passes
                lines.append("looped: \(p.id) (pass \(p.passes + 1)\(p.loopsLeft >= 0 ? ", \(p.loopsLeft) left" : ""))")
            }
            if p.underruns > underrunsSeen[p.id, default: 0], Date().timeIntervalSince(lastUnderrunLine) >= 1 {
                underrunsSeen[p.id] = p.underruns
                lastUnderrunLine = Date()
                lines.append("underrun: \(p.id): \(p.underruns) frames played as silence so far (the file could not be read in time)")
            }
            if p.finished && !finishedSeen.contains(p.id) {
                finishedSeen.insert(p.id)
                lines.append("finished: \(p.id)")
            }
        }
        return lines
    }
}
