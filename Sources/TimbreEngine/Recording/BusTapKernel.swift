import TimbreDSP

/// A graph step that copies a channel's or group's bus into a ``RecordingTap`` (a take of that
/// bus: `record start FILE <channel id>` in `timbre live`). It sits after the channel's pan (or
/// the group's chain), before the bus's volume and mix, and is compiled into the plan only while
/// the tap is registered (``LiveEngine/setBusTap(_:bus:)``). Real-time safe: the tap's capture
/// only copies into its ring (or counts an overrun).
struct BusTapKernel: GraphKernel {
    let tap: RecordingTap
    var shape: KernelShape { KernelShape("tap", carriesState: false) }
    static let operations = KernelOperations(process: { k, b in BusTapKernel.at(k).pointee.process(b.block) })

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ b: UnsafePointer<BlockContext>) {
        tap.capture(b.pointee.channels, frameCount: b.pointee.frameCount)
    }
}
