/// A `player` channel's step: the channel's stream, read through its shared kernel (owned by
/// its ``PlayerState``).
struct PlayerStep: GraphKernel {
    let kernel: UnsafeMutablePointer<PlayerKernel>
    var shape: KernelShape { KernelShape("player", carriesState: false) }
    static let operations = KernelOperations(process: { k, b in
        PlayerStep.at(k).pointee.kernel.pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount, stamp: b.block.pointee.stamp)
    })
}
