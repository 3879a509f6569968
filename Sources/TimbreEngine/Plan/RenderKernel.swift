import TimbreDSP

/// What the render loop hands a kernel for one block.
package struct BlockContext {
    /// The step's channels (the work channels from its base).
    package let channels: UnsafePointer<UnsafeMutablePointer<Float>>
    /// Every work channel, for steps that read or write other buses (copy, mix).
    package let work: UnsafePointer<UnsafeMutablePointer<Float>>
    package let channelCount: Int
    package let frameCount: Int
    /// The host block's stamp, the same for both plans of a crossfade (see ``BlockReplay``).
    package let stamp: Int
    /// False for a plan fading out: it must not feed the measurements its successor shares.
    package let analyse: Bool
}

/// The render-thread entry points of a kernel type: C-convention functions (no context, no
/// captures), so the render loop calls a step through a pointer without existentials, generics
/// or reference counting. Each is a one-line thunk into the kernel's own `@_noLocks` method.
package struct KernelOperations: @unchecked Sendable {
    /// `(kernel, BlockContext*)`: renders one block in place.
    package typealias Process = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void
    /// `(new kernel, old kernel, StateTransfer*)`: continues the previous plan's state.
    package typealias Continue = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, UnsafeRawPointer) -> Void
    /// `(kernel)`: clears state.
    package typealias Action = @convention(c) (UnsafeMutableRawPointer) -> Void

    package let process: Process
    package let continueState: Continue?
    /// Clears filter memories and delay lines (``RenderPlan/reset()``).
    package let reset: Action?
    /// Clears the state if it holds NaN or infinity (after a poisoned block).
    package let clearNonFinite: Action?

    package init(process: Process, continueState: Continue? = nil, reset: Action? = nil, clearNonFinite: Action? = nil) {
        self.process = process; self.continueState = continueState; self.reset = reset; self.clearNonFinite = clearNonFinite
    }
}

/// A kernel value a plan can hold in raw memory and run per block. Kernels that own memory are
/// non-copyable (TimbreDSP's ``AudioKernel``s and the steps holding them): the plan ends each
/// one on the control thread when it is freed, and its `deinit` frees what it allocated.
package protocol RenderKernel: ~Copyable {
    /// The kernel's render-thread entry points.
    static var operations: KernelOperations { get }
}

extension RenderKernel where Self: ~Copyable {
    /// The kernel at `raw` (for the thunks in ``operations``).
    @inline(__always) package static func at(_ raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Self> {
        raw.assumingMemoryBound(to: Self.self)
    }
}

extension UnsafeRawPointer {
    /// The block context a thunk receives.
    @inline(__always) package var block: UnsafePointer<BlockContext> { assumingMemoryBound(to: BlockContext.self) }
    /// The state transfer a continue thunk receives.
    @inline(__always) package var transfer: UnsafePointer<StateTransfer> { assumingMemoryBound(to: StateTransfer.self) }
}

/// What a step is, without its state: a step continues the previous plan's step with the same
/// key and shape (when the shape carries state).
package struct KernelShape: Hashable, Sendable {
    package let name: String
    package let detail: [Int]
    package let carriesState: Bool
    package init(_ name: String, _ detail: [Int] = [], carriesState: Bool) {
        self.name = name; self.detail = detail; self.carriesState = carriesState
    }
}

/// How to make a kernel, without making it yet: the storage stage allocates every kernel of a
/// plan at once, so nothing is allocated (or leaked) by a compile that fails.
package struct KernelRecipe {
    package let shape: KernelShape
    /// Fades in over 30 ms when it joins a running stream without state to continue (filters).
    package let fadesInWhenNew: Bool
    let make: () -> (address: UnsafeMutableRawPointer, operations: KernelOperations, release: () -> Void)

    package init<K: RenderKernel & ~Copyable>(shape: KernelShape, fadesInWhenNew: Bool = false, _ kernel: @escaping () -> K) {
        self.shape = shape; self.fadesInWhenNew = fadesInWhenNew
        make = {
            let p = UnsafeMutablePointer<K>.allocate(capacity: 1)
            p.initialize(to: kernel())
            return (UnsafeMutableRawPointer(p), K.operations, { p.deinitialize(count: 1); p.deallocate() })
        }
    }
}

/// One step of a compiled plan as the render loop sees it.
struct RenderStep {
    let kernel: UnsafeMutableRawPointer
    let operations: KernelOperations
    /// The first work channel it works on, and how many.
    let base: Int
    let channels: Int
    /// Whether it crossfades from dry while its fade-in runs.
    let fadesIn: Bool
}

/// A step's state moving from the previous plan (read by ``PlanCore/adoptState(from:)`` on the
/// audio thread: plain integers). For a fused cascade, one per member: sections `from ..< from
/// + count` of the old cascade continue as `to ..< to + count` of the new.
package struct StateTransfer: Equatable {
    package let step: Int, source: Int
    package let from: Int, to: Int, count: Int

    package init(step: Int, source: Int, from: Int, to: Int, count: Int) {
        self.step = step; self.source = source; self.from = from; self.to = to; self.count = count
    }
}
