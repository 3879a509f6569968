/// One non-copyable kernel owned by a class, for code off the audio thread that shares a kernel
/// between closures or threads, keeps kernels in a collection, or hands one over (``take()``).
///
/// The box is the kernel's one owner: the kernel is freed with the box, or moved out by
/// ``take()``. The audio thread never reaches a kernel through a box (that would count
/// references): a plan holds its kernels in its own raw memory. The kernel lives in memory the
/// box allocates, as a plan's do (an `Optional` of a non-copyable value kept in a class
/// property did not reliably read as empty after `take()` in release builds here).
public final class KernelBox<Kernel: ~Copyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Kernel>
    private var present = true

    public init(_ kernel: consuming Kernel) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: kernel)
    }

    deinit {
        if present { storage.deinitialize(count: 1) }
        storage.deallocate()
    }

    /// Whether the kernel is still in the box (not taken).
    public var holdsKernel: Bool { present }

    /// Moves the kernel out (nil once taken).
    @inline(never)
    public func take() -> Kernel? {
        guard present else { return nil }
        present = false
        return storage.move()
    }

    /// Runs `body` on the kernel in the box (which must not have been taken).
    public func withKernel<R, E: Error>(_ body: (borrowing Kernel) throws(E) -> R) throws(E) -> R {
        precondition(present, "KernelBox: the kernel was taken")
        return try body(storage.pointee)
    }
}
