/// One preset node inside a fused biquad cascade: adjacent `filter` and `eq` nodes on the same
/// channels compile to one ``BiquadCascade`` (one pass over the block, the sections in
/// registers), and each keeps its identity here so its filter memory continues across plans
/// even when its neighbours change.
struct CascadeMember: Equatable {
    /// The node's key (its id or `#index`, with the chain's prefix).
    let key: String
    /// Its first section in the cascade (identity sections left out).
    let offset: Int
    /// Its section count.
    let sections: Int
    let channels: Int
}

/// A member's state moving from a cascade of the previous plan to one of this plan
/// (read by ``PlanCore/adoptState(from:)`` on the audio thread: plain integers).
struct CascadeTransfer {
    /// Node index in this plan and the member's first section there.
    let node: Int, to: Int
    /// Node index in the previous plan and the member's first section there.
    let source: Int, from: Int
    let sections: Int
}
