/// One non-copyable kernel owned by a class, for code off the audio thread that shares a kernel
/// between closures or threads, keeps kernels in a collection, or hands one over (``take()``).
///
/// The box is the kernel's one owner: the kernel is freed with the box, or moved out by
/// ``take()``. The audio thread never reaches a kernel through a box (that would count
/// references): a plan holds its kernels in its own raw memory.
public final class KernelBox<Kernel: ~Copyable>: @unchecked Sendable {
    private var held: Kernel?

    public init(_ kernel: consuming Kernel) { held = .some(kernel) }

    /// Moves the kernel out (nil once taken).
    public func take() -> Kernel? { held.take() }

    /// Runs `body` on the kernel in the box (which must not have been taken).
    public func withKernel<R, E: Error>(_ body: (borrowing Kernel) throws(E) -> R) throws(E) -> R {
        switch held {
        case .some(let kernel): return try body(kernel)
        case .none: preconditionFailure("KernelBox: the kernel was taken")
        }
    }
}
