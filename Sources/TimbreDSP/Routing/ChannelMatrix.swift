/// A matrix mixer: N input channels to M output channels through a list of routes, each with
/// its own gain (polarity as its sign, a mute as 0). Splitting a channel is two routes from it;
/// merging is two routes into one output. In place on `max(N, M)` channels (the inputs are
/// copied aside first). A route's gain moves in a 20 ms linear ramp when it changes
/// (``setGains(_:count:)``), so a live send level or mute does not click.
public struct ChannelMatrix: ~Copyable, @unchecked Sendable {
    /// One route: input `from` into output `to` at `gain` (linear; negative inverts).
    public struct Route: Sendable, Equatable, Hashable {
        public var from: Int
        public var to: Int
        public var gain: Float
        public init(from: Int, to: Int, gain: Float) { self.from = from; self.to = to; self.gain = gain }
    }

    public let inputCount: Int
    public let outputCount: Int
    public let routeCount: Int
    let maximumBlockFrames: Int
    let rampFrames: Int
    /// Per route: from, to.
    let ends: UnsafeMutablePointer<(from: Int, to: Int)>
    let ramps: UnsafeMutablePointer<LinearRamp>
    /// `inputCount × maximumBlockFrames`: the inputs, copied before the outputs are written.
    let saved: UnsafeMutablePointer<Float>

    public init(routes: [Route], inputCount: Int, outputCount: Int, sampleRate: Double, maximumBlockFrames: Int) {
        precondition(inputCount >= 1 && outputCount >= 1 && routes.allSatisfy { (0..<inputCount).contains($0.from) && (0..<outputCount).contains($0.to) })
        self.inputCount = inputCount; self.outputCount = outputCount; routeCount = routes.count
        self.maximumBlockFrames = maximumBlockFrames
        rampFrames = max(1, Int(0.02 * sampleRate))
        ends = .allocate(capacity: max(1, routes.count))
        ramps = .allocate(capacity: max(1, routes.count))
        for (k, r) in routes.enumerated() {
            (ends + k).initialize(to: (r.from, r.to))
            (ramps + k).initialize(to: LinearRamp(value: r.gain))
        }
        saved = .allocate(capacity: inputCount * maximumBlockFrames)
        saved.initialize(repeating: 0, count: inputCount * maximumBlockFrames)
    }

    deinit { ends.deallocate(); ramps.deallocate(); saved.deallocate() }

    /// The channels `process` reads and writes.
    public var width: Int { max(inputCount, outputCount) }

    /// Mixes the first ``inputCount`` of `channels` into the first ``outputCount``.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let saved = saved, stride = maximumBlockFrames
        for c in 0..<inputCount {
            let x = channels[c], s = saved + c * stride
            for i in 0..<frameCount { s[i] = x[i] }
        }
        for c in 0..<outputCount {
            let y = channels[c]
            for i in 0..<frameCount { y[i] = 0 }
        }
        for k in 0..<routeCount {
            let (from, to) = ends[k]
            ramps[k].accumulate(from: saved + from * stride, into: channels[to], count: frameCount)
            ramps[k].advance(by: frameCount)
        }
    }

    /// New gains for the routes, in order (the audio thread, between blocks): each ramps there.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func setGains(_ gains: UnsafePointer<Double>, count: Int) {
        for k in 0..<min(count, routeCount) where ramps[k].target != Float(gains[k]) {
            ramps[k].setTarget(Float(gains[k]), frames: rampFrames)
        }
    }

    /// Takes over `previous`'s gains where it has the same routes (a plan swap mid-ramp).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing ChannelMatrix) {
        guard previous.routeCount == routeCount else { return }
        for k in 0..<routeCount where previous.ends[k] != ends[k] { return }
        for k in 0..<routeCount {
            let target = ramps[k].target
            ramps[k] = LinearRamp(value: previous.ramps[k].current)
            ramps[k].setTarget(target, frames: ramps[k].current == target ? 0 : rampFrames)
        }
    }
}
