/// Convolution with routes from inputs to outputs, a wet/dry mix and a stereo width: what a
/// `convolver` node runs. Each route p convolves input `routes[p].input` with response p of
/// the filter (``ConvolutionFilter``: response min(p, responses − 1)) and adds it to output
/// `routes[p].output`:
///
/// ```
///  mono IR:          x_c ─ h ─▶ y_c                       (every channel, one response)
///  per channel:      x_c ─ h_c ─▶ y_c
///  mono → stereo:    x_0 ─ h_L ─▶ y_L,  x_0 ─ h_R ─▶ y_R
///  true stereo:      x_L ─ h_LL ─▶ y_L,  x_L ─ h_LR ─▶ y_R,  x_R ─ h_RL ─▶ y_L,  x_R ─ h_RR ─▶ y_R
/// ```
///
/// Then, with two outputs, the wet pair's side is scaled by `width` (mid = (L + R) / 2,
/// side = (L − R) / 2 × width), and every output is `dry × x + wet × y`, the dry signal being
/// the input of the same index (the last input for outputs beyond the inputs: a mono input
/// feeds both sides). No latency is added (``PartitionedConvolver``).
public struct RoutedConvolver: ~Copyable, @unchecked Sendable {
    /// One route: which input it reads and which output it adds to.
    public struct Route: Sendable, Equatable {
        public let input: Int
        public let output: Int
        public init(input: Int, output: Int) { self.input = input; self.output = output }
    }

    /// The routes' convolutions, one channel per route.
    public let convolver: PartitionedConvolver
    public let inputCount: Int
    public let outputCount: Int
    let routes: UnsafeMutablePointer<Route>
    let routeCount: Int
    /// Per output: its first route (whose scratch collects the output's wet sum).
    let leads: UnsafeMutablePointer<Int>
    /// Per route: `maximumBlockFrames` floats, the route's input, then its wet output.
    let scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let maximumBlockFrames: Int
    let dry: Float, wet: Float, width: Float

    /// A convolver running `filter` over `routes` (its responses in route order) on blocks of
    /// up to `maximumBlockFrames`; `mix` is the wet share (0…1, dry 1 − mix), `width` the wet
    /// side's scale with two outputs (1: as convolved); `threading`, `counters` and
    /// `fadingFrom` (the filter of the kernel whose state this one will take over: crossfaded)
    /// as for ``PartitionedConvolver``.
    public init(filter: ConvolutionFilter, routes: [Route], inputCount: Int, outputCount: Int, maximumBlockFrames: Int, mix: Float = 1, width: Float = 1,
                threading: ConvolutionThreading = .callingThread, counters: ConvolutionCounters? = nil, fadingFrom: ConvolutionFilter? = nil) {
        precondition(!routes.isEmpty && inputCount >= 1 && outputCount >= 1 && maximumBlockFrames >= 1
                     && routes.allSatisfy { (0..<inputCount).contains($0.input) && (0..<outputCount).contains($0.output) }
                     && (0..<outputCount).allSatisfy { o in routes.contains { $0.output == o } })
        convolver = PartitionedConvolver(filter: filter, channelCount: routes.count, maximumBlockFrames: maximumBlockFrames, threading: threading, counters: counters, fadingFrom: fadingFrom)
        self.inputCount = inputCount; self.outputCount = outputCount
        self.routes = .allocate(capacity: routes.count)
        self.routes.initialize(from: routes, count: routes.count)
        routeCount = routes.count
        leads = .allocate(capacity: outputCount)
        for o in 0..<outputCount { (leads + o).initialize(to: routes.firstIndex { $0.output == o }!) }
        self.maximumBlockFrames = maximumBlockFrames
        scratch = .allocate(capacity: routes.count)
        for p in 0..<routes.count {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: maximumBlockFrames)
            buffer.initialize(repeating: 0, count: maximumBlockFrames)
            (scratch + p).initialize(to: buffer)
        }
        dry = 1 - mix; wet = mix; self.width = width
    }

    deinit {
        for p in 0..<routeCount { scratch[p].deallocate() }
        scratch.deallocate(); routes.deallocate(); leads.deallocate()
    }

    /// Convolves `frameCount` (≤ the largest block) frames: reads the first `inputCount`
    /// channels and writes the first `outputCount` (the buffers hold the larger of the two).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let n = frameCount
        for p in 0..<routeCount {
            let from = channels[routes[p].input], to = scratch[p]
            for i in 0..<n { to[i] = from[i] }
        }
        convolver.process(UnsafePointer(scratch), frameCount: n)
        // Each output's wet signal: its routes summed, in route order, into its first route's scratch.
        for p in 0..<routeCount where leads[routes[p].output] != p {
            let a = scratch[leads[routes[p].output]], b = scratch[p]
            for i in 0..<n { a[i] += b[i] }
        }
        if outputCount == 2 && width != 1 {
            let l = scratch[leads[0]], r = scratch[leads[1]], w = width
            for i in 0..<n {
                let mid = (l[i] + r[i]) * 0.5, side = (l[i] - r[i]) * 0.5 * w
                l[i] = mid + side; r[i] = mid - side
            }
        }
        // Outputs from the last down: an output's dry input has an index at most its own, so
        // no dry signal is overwritten before it is read.
        var o = outputCount - 1
        while o >= 0 {
            let y = scratch[leads[o]], x = channels[min(o, inputCount - 1)], out = channels[o]
            if dry == 0 && wet == 1 {
                for i in 0..<n { out[i] = y[i] }
            } else {
                let d = dry, w = wet
                for i in 0..<n { out[i] = d * x[i] + w * y[i] }
            }
            o -= 1
        }
    }
}

extension RoutedConvolver {
    /// Silence before, position 0.
    public func reset() { convolver.reset() }

    /// Takes over `previous`'s convolution state (same routes and layout).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing RoutedConvolver) {
        guard previous.routeCount == routeCount else { return }
        convolver.continueState(from: previous.convolver)
    }

    /// Clears the convolution state if NaN or infinity reached it; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool { convolver.clearNonFinite() }
}
