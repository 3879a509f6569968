import TimbreDSP

/// Stage 2: adjacent filter sections on the same channels of one chain become one
/// ``BiquadCascade`` (one pass over the block, the sections in registers); each preset node
/// keeps its identity as a ``CascadeMember`` so its memory continues across plans even when
/// its neighbours change.
///
/// A node new to a running stream (no member of the previous plan with its key and size)
/// stays on its own so it can fade in; compiling the same document again once it has faded
/// fuses it (``LiveEngine/performHousekeeping()``).
package struct CascadeFusion {
    package var steps: [PlannedStep] = []
    /// True when a newcomer was left unfused (see ``RenderPlan/hasUnfusedNewcomers``).
    package var hasUnfusedNewcomers = false

    /// With `movable`: each member's live motion (``CoefficientMotion``), by the node's JSON path.
    package var motions: [String: CoefficientMotion] = [:]

    /// `previousMembers`: the previous plan's members by key (nil: not continuing a plan).
    /// `movable`: cascades whose nodes a live engine moves in place (``MovingBiquadCascade``).
    package init(_ planned: [PlannedStep], previousMembers: [String: CascadeMember]?, movable: Bool = false) {
        var pending: [PlannedStep] = []   // `.sections` steps gathered for one cascade
        func flush() {
            defer { pending = [] }
            guard let first = pending.first else { return }
            var sections: [BiquadCoefficients] = []
            var members: [CascadeMember] = []
            for p in pending {
                guard case .sections(let s) = p.content else { continue }
                members.append(CascadeMember(key: p.key, offset: sections.count, sections: s.count, channels: p.channels, path: p.path))
                sections += s
            }
            let channels = first.channels
            let recipe: KernelRecipe
            if movable {
                let handles = members.map { m in
                    let motion = CoefficientMotion(offset: m.offset, sections: m.sections)
                    motions[m.path] = motion
                    return motion.handle
                }
                recipe = KernelRecipe(shape: KernelShape("moving-biquads", [sections.count, channels], carriesState: true), fadesInWhenNew: true) {
                    MovingBiquadCascade(cascade: BiquadCascade(sections: sections, channelCount: channels, keepingIdentities: true), motions: handles)
                }
            } else {
                recipe = KernelRecipe(shape: KernelShape("biquads", [sections.count, channels], carriesState: true), fadesInWhenNew: true) {
                    BiquadCascade(sections: sections, channelCount: channels)
                }
            }
            steps.append(PlannedStep(key: members.map(\.key).joined(separator: "+"), base: first.base, channels: channels,
                                     segment: first.segment, content: .kernel(recipe), members: members))
        }
        for var step in planned {
            guard case .sections(let all) = step.content else {
                flush()
                steps.append(step)
                continue
            }
            // A live plan keeps a flat band's identity section, so moving it needs no new plan.
            let active = movable ? all : all.filter { !$0.isIdentity }
            guard !active.isEmpty else { continue }
            step.content = .sections(active)
            let fresh = previousMembers.map { members in
                members[step.key].map { $0.sections != active.count || $0.channels != step.channels } ?? true
            } ?? false
            if let last = pending.last, fresh || last.base != step.base || last.channels != step.channels || last.segment != step.segment { flush() }
            pending.append(step)
            if fresh { flush(); hasUnfusedNewcomers = true }
        }
        flush()
    }
}

/// One preset node inside a fused biquad cascade.
package struct CascadeMember: Equatable, Sendable {
    /// The node's key (its id or `#index`, with the chain's prefix).
    package let key: String
    /// Its first section in the cascade (identity sections left out).
    package let offset: Int
    /// Its section count.
    package let sections: Int
    package let channels: Int
    /// The node's JSON path.
    package let path: String

    package init(key: String, offset: Int, sections: Int, channels: Int, path: String = "") {
        self.key = key; self.offset = offset; self.sections = sections; self.channels = channels; self.path = path
    }
}

extension BiquadCascade: RenderKernel {
    package static let operations = KernelOperations(
        process: { k, b in BiquadCascade.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, t in
            BiquadCascade.at(new).pointee.copyState(from: BiquadCascade.at(old).pointee, sections: t.transfer.pointee.from,
                                                    to: t.transfer.pointee.to, count: t.transfer.pointee.count)
        },
        reset: { k in BiquadCascade.at(k).pointee.reset() },
        clearNonFinite: { k in BiquadCascade.at(k).pointee.clearNonFinite() })
}
