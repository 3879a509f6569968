import TimbreDSP

/// The format a plan is compiled for.
public struct RenderFormat: Sendable, Equatable {
    public var sampleRate: Double
    public var inputChannelCount: Int
    /// The largest block `render` will be asked for at once; larger requests are split.
    public var maxBlockFrames: Int

    public init(sampleRate: Double, inputChannelCount: Int, maxBlockFrames: Int = 4096) {
        self.sampleRate = sampleRate; self.inputChannelCount = inputChannelCount; self.maxBlockFrames = maxBlockFrames
    }
}

/// A compiled chain: kernels in order, with every buffer allocated up front.
///
/// ```
///  input[c] ──copy──▶ work[0..<maxChannels] ──node 0──▶ … ──node N──▶ copy ──▶ output[c]
/// ```
///
/// `init` runs on the control thread and does all allocation and filter design.
/// `render` is the real-time entry: it only reads and writes the preallocated memory.
public final class RenderPlan {
    public let format: RenderFormat
    /// Channels after the chain (a `pan` on mono input makes 2).
    public let outputChannelCount: Int
    let nodes: UnsafeMutableBufferPointer<RenderNode>
    let work: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let workStorage: UnsafeMutablePointer<Float>
    let workChannels: Int

    /// Compiles `preset` for `format`. Throws a ``PresetError`` with the node's path when a
    /// frequency is at or above 0.49 × the sample rate or a node cannot take the channel count.
    public init(preset: Preset, format: RenderFormat) throws(PresetError) {
        precondition(format.inputChannelCount >= 1 && format.maxBlockFrames >= 1)
        self.format = format
        let fs = format.sampleRate
        let limit = ParameterRanges.nyquistFraction * fs
        func checkFrequency(_ f: Double, _ path: String) throws(PresetError) {
            if f >= limit {
                throw PresetError(path: path, "\(JSONValue.number(f).brief) Hz is at or above 0.49 × the sample rate (must be below \(JSONValue.number((limit * 10).rounded(.down) / 10).brief) Hz at \(JSONValue.number(fs).brief) Hz)")
            }
        }
        var channels = format.inputChannelCount
        var maxChannels = channels
        var compiled: [RenderNode] = []
        for node in preset.chain where !node.bypass {
            switch node.kind {
            case .filter(let design):
                try checkFrequency(design.frequencyHz, node.path + ".frequency")
                let sections = design.sections(sampleRate: fs)
                if !sections.isEmpty { compiled.append(.biquads(BiquadCascade(sections: sections, channelCount: channels))) }
            case .eq(let bands):
                var sections: [BiquadCoefficients] = []
                for (j, band) in bands.enumerated() {
                    try checkFrequency(band.frequencyHz, node.path + ".bands[\(j)].frequency")
                    sections += band.design.sections(sampleRate: fs)
                }
                if !sections.isEmpty { compiled.append(.biquads(BiquadCascade(sections: sections, channelCount: channels))) }
            case .gain(let linear):
                compiled.append(.gain(GainKernel(gain: Float(linear), sampleRate: fs)))
            case .pan(let p):
                switch channels {
                case 1:
                    compiled.append(.pan(PanKernel(pan: p, mode: .monoToStereo, sampleRate: fs)))
                    channels = 2
                case 2:
                    compiled.append(.pan(PanKernel(pan: p, mode: .stereoBalance, sampleRate: fs)))
                default:
                    throw PresetError(path: node.path, "pan needs mono or stereo input, the chain has \(channels) channels here")
                }
            }
            maxChannels = max(maxChannels, channels)
        }
        outputChannelCount = channels
        workChannels = maxChannels
        nodes = .allocate(capacity: compiled.count)
        _ = nodes.initialize(from: compiled)
        workStorage = .allocate(capacity: maxChannels * format.maxBlockFrames)
        workStorage.initialize(repeating: 0, count: maxChannels * format.maxBlockFrames)
        work = .allocate(capacity: maxChannels)
        for c in 0..<maxChannels { work[c] = workStorage + c * format.maxBlockFrames }
    }

    deinit {
        for node in nodes {
            if case .biquads(let k) = node { k.deallocate() }
        }
        nodes.deallocate()
        work.deallocate()
        workStorage.deallocate()
    }

    /// Clears all filter state and finishes all ramps.
    public func reset() {
        for node in nodes {
            if case .biquads(let k) = node { k.reset() }
        }
    }

    /// Renders `frameCount` frames: reads `format.inputChannelCount` planar channels from
    /// `input` and writes `outputChannelCount` planar channels to `output`.
    /// Real-time safe: no allocation, locks, I/O or reference counting.
    public func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let n = min(format.maxBlockFrames, frameCount - done)
            for c in 0..<format.inputChannelCount {
                work[c].update(from: input[c] + done, count: n)
            }
            for i in 0..<nodes.count {
                switch nodes[i] {
                case .biquads(let k):
                    k.process(UnsafePointer(work), frameCount: n)
                case .gain(var k):
                    k.process(UnsafePointer(work), channelCount: outputChannels(before: i), frameCount: n)
                    nodes[i] = .gain(k)
                case .pan(var k):
                    k.process(UnsafePointer(work), frameCount: n)
                    nodes[i] = .pan(k)
                }
            }
            for c in 0..<outputChannelCount {
                (output[c] + done).update(from: work[c], count: n)
            }
            done += n
        }
    }

    /// Channel count flowing into node `i` (2 after a mono→stereo pan).
    @inline(__always) func outputChannels(before i: Int) -> Int {
        var channels = format.inputChannelCount
        for j in 0..<i {
            if case .pan(let p) = nodes[j], p.mode == .monoToStereo { channels = 2 }
        }
        return channels
    }
}
