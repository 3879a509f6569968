import TimbreDSP

/// A step of a plan being compiled: a plain value the compile stages pass along (no memory
/// allocated yet).
package struct PlannedStep {
    /// The node's key (its id or `#index`, with the chain's prefix) or a graph step's
    /// (`mix:<channel>`); a fused cascade joins its members' keys with `+`.
    package var key: String
    package var base: Int
    package var channels: Int
    /// Which chain it belongs to (filters fuse only within one).
    package var segment: Int
    package var content: Content
    /// Frames it delays its channels by.
    package var latency: Int = 0
    /// For a fused cascade, the preset nodes in it.
    package var members: [CascadeMember] = []
    /// The preset node's JSON path (filter sections: where a live edit finds them).
    package var path: String = ""

    package enum Content {
        /// Filter sections waiting to be fused (``CascadeFusion``).
        case sections([BiquadCoefficients])
        case kernel(KernelRecipe)
    }

    package var recipe: KernelRecipe? { if case .kernel(let r) = content { r } else { nil } }
}
