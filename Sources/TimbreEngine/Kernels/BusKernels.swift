import TimbreDSP

// The kernels a graph adds around its nodes: inputs copied onto channel buses, buses cleared
// before mixing, channels and groups mixed into buses.

/// Copies work channel `from` onto the step's channel (a graph channel's input).
struct CopyKernel: GraphKernel {
    let from: Int
    var shape: KernelShape { KernelShape("copy", carriesState: false) }
    static let operations = KernelOperations(process: { k, b in CopyKernel.at(k).pointee.process(b.block) })

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ b: UnsafePointer<BlockContext>) {
        let src = b.pointee.work[from], dst = b.pointee.channels[0], n = b.pointee.frameCount
        for j in 0..<n { dst[j] = src[j] }
    }
}

/// Zeroes `count` channels (a bus before its inputs are mixed in).
struct ClearKernel: GraphKernel {
    let count: Int
    var shape: KernelShape { KernelShape("clear", carriesState: false) }
    static let operations = KernelOperations(process: { k, b in ClearKernel.at(k).pointee.process(b.block) })

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ b: UnsafePointer<BlockContext>) {
        let n = b.pointee.frameCount
        for c in 0..<count { let w = b.pointee.channels[c]; for j in 0..<n { w[j] = 0 } }
    }
}

/// Does nothing: marks where the master's channels reach the outputs, so latency compensation
/// can put a delay before it when an aux with outputs of its own takes longer.
struct AlignmentMark: GraphKernel {
    var shape: KernelShape { KernelShape("align", carriesState: false) }
    static let operations = KernelOperations(process: { _, _ in })
}

/// Adds `count` channels into the bus at `to`, scaled by a ramped gain (volume × mute/solo),
/// so muting does not click; a continued mix glides from the old gain over 30 ms.
struct MixKernel: GraphKernel {
    let to: Int
    let count: Int
    var gain: LinearRamp
    let glideFrames: Int
    /// In a live plan: the gain's target, moved in place (volume, mute, solo), and its last bits read.
    let motion: ValueMotion.Handle?
    var seen: UInt64

    init(to: Int, count: Int, gain: Float, sampleRate: Double, motion: ValueMotion.Handle? = nil) {
        self.to = to; self.count = count; self.gain = LinearRamp(value: gain)
        glideFrames = max(1, Int(0.03 * sampleRate))
        self.motion = motion; seen = Double(gain).bitPattern
    }

    var shape: KernelShape { KernelShape("mix", carriesState: true) }
    static let operations = KernelOperations(
        process: { k, b in MixKernel.at(k).pointee.process(b.block) },
        continueState: { new, old, _ in MixKernel.at(new).pointee.continueFrom(MixKernel.at(old).pointee) })

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    mutating func process(_ b: UnsafePointer<BlockContext>) {
        let n = b.pointee.frameCount
        if let motion, let bits = motion.changed(from: seen) { seen = bits; gain.setTarget(Float(Double(bitPattern: bits)), frames: glideFrames) }
        for c in 0..<count { gain.accumulate(from: b.pointee.channels[c], into: b.pointee.work[to + c], count: n) }
        gain.advance(by: n)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    mutating func continueFrom(_ previous: MixKernel) {
        let target = gain.target
        gain = LinearRamp(value: previous.gain.current)
        gain.setTarget(target, frames: glideFrames)
    }
}

extension SineGenerator: GraphKernel {
    var shape: KernelShape { KernelShape("sine", carriesState: true) }
    package static let operations = KernelOperations(
        process: { k, b in SineGenerator.at(k).pointee.generate(into: b.block.pointee.channels[0], frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in SineGenerator.at(new).pointee.phase = SineGenerator.at(old).pointee.phase },
        reset: { k in SineGenerator.at(k).pointee.phase = 0 })
}

extension GainKernel: GraphKernel {
    var shape: KernelShape { KernelShape("gain", carriesState: true) }
    package static let operations = KernelOperations(
        process: { k, b in GainKernel.at(k).pointee.process(b.block.pointee.channels, channelCount: b.block.pointee.channelCount, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in GainKernel.at(new).pointee.continueFrom(GainKernel.at(old).pointee) })
}

extension PanKernel: GraphKernel {
    var shape: KernelShape { KernelShape("pan", [mode == .monoToStereo ? 1 : 2], carriesState: true) }
    package static let operations = KernelOperations(
        process: { k, b in PanKernel.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in PanKernel.at(new).pointee.continueFrom(PanKernel.at(old).pointee) })
}
