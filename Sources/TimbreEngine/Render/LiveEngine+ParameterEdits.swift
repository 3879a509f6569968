import Foundation
import TimbreDSP

/// How an edit reached the audio thread.
public enum LiveEditPath: Sendable, Equatable {
    /// Moved inside the running kernels (a coefficient walk, or a ramp target): no plan compiled, no crossfade.
    case inKernel(nodes: Int)
    /// A new plan, swapped in with a crossfade (structure, types, slopes, shapes, graphs).
    case planSwap
}

extension LiveEngine {
    /// Applies an edited document (what `TimbreControl`'s editor makes of a `set`). When it
    /// differs from the running one only in the frequency, gain or Q of filter and EQ nodes,
    /// the gain of gain nodes, the position of pan nodes, or a graph's volumes, pans, mutes and
    /// solos, those move inside the running kernels (filters: `CoefficientMotion`, designed
    /// here and walked by the audio thread in 32-frame steps; the rest: ramp targets) and no
    /// plan is compiled; anything else — a type, a slope, a shape, a bypass, an insert —
    /// compiles a new plan and swaps it in as ``load(document:)`` does. Decoded with the strict decoder either way; on error
    /// nothing changes.
    @discardableResult
    public func apply(document newDocument: JSONValue) throws(PresetError) -> LiveEditPath {
        let next = try PresetDecoder.decode(newDocument)
        if let moved = moveInPlace(to: next) {
            preset = next
            document = newDocument
            return .inKernel(nodes: moved)
        }
        try publish(next, document: newDocument)
        return .planSwap
    }

    /// The walks for every changed node, published; nil (nothing published) when any change
    /// is not a continuous parameter of a node the current plan can move.
    func moveInPlace(to next: Preset) -> Int? {
        let old = preset.allNodes, new = next.allNodes
        guard old.count == new.count, let graphValues = graphMoves(to: next) else { return nil }
        var walks: [(CoefficientMotion, [[BiquadCoefficients]], Int)] = []
        var values: [(ValueMotion, Double)] = graphValues
        var settingsMoves: [(ValuesMotion, [Double])] = []
        for (a, b) in zip(old, new) where a != b {
            guard a.id == b.id, a.bypass == b.bypass, a.path == b.path, !b.bypass else { return nil }
            if let motion = plan.valuesMotions[b.path], let x = a.kind.settings(as: CompressorSettings.self), let y = b.kind.settings(as: CompressorSettings.self) {
                // Threshold, ratio, knee, makeup, attack, release and link move; the rest is structure.
                var same = x
                same.thresholdDB = y.thresholdDB; same.ratio = y.ratio; same.kneeDB = y.kneeDB; same.makeupDB = y.makeupDB
                same.attackMs = y.attackMs; same.releaseMs = y.releaseMs; same.linkPercent = y.linkPercent
                guard same == y else { return nil }
                settingsMoves.append((motion, CompressorStep.motionValues(y, sampleRate: sampleRate)))
                continue
            }
            if let motion = plan.valuesMotions[b.path], let x = a.kind.settings(as: GateSettings.self), let y = b.kind.settings(as: GateSettings.self) {
                // Every number moves; the key and its filter are structure.
                var same = y
                same.keyChannel = x.keyChannel; same.keyFilter = x.keyFilter
                guard same == y, x.isExpander == y.isExpander else { return nil }
                settingsMoves.append((motion, GateStep.motionValues(y, sampleRate: sampleRate)))
                continue
            }
            if let motion = plan.valuesMotions[b.path], let x = a.kind.settings(as: LimiterSettings.self), let y = b.kind.settings(as: LimiterSettings.self) {
                // The ceiling and release move; lookahead, link and detector are structure.
                var same = x
                same.ceilingDB = y.ceilingDB; same.releaseMs = y.releaseMs
                guard same == y else { return nil }
                settingsMoves.append((motion, LimiterStep.motionValues(y, sampleRate: sampleRate)))
                continue
            }
            if let motion = plan.valuesMotions[b.path], let moved = b.kind.definition.liveValues(fromAny: a.kind.parameters, to: b.kind.parameters, sampleRate: sampleRate) {
                settingsMoves.append((motion, moved))
                continue
            }
            if let motion = plan.valueMotions[b.path] {
                if let g = b.kind.settings(as: GainSettings.self), a.kind.settings(as: GainSettings.self) != nil { values.append((motion, g.linear)); continue }
                if let p = b.kind.settings(as: PanSettings.self), a.kind.settings(as: PanSettings.self) != nil { values.append((motion, p.pan)); continue }
                return nil
            }
            guard let motion = plan.motions[b.path],
                  let path = Self.designPath(from: a.kind, to: b.kind, sampleRate: sampleRate), path.points.allSatisfy({ $0.count == motion.sections })
            else { return nil }
            walks.append((motion, path.points, path.stepsPerPoint))
        }
        // (Nothing to move — a solo that leaves every gain as it was, a value set to itself — is
        // an edit of the document alone.)
        for (motion, points, steps) in walks { motion.publish(points, stepsPerPoint: steps) }
        for (motion, value) in values { motion.set(value) }
        for (motion, new) in settingsMoves { motion.set(new) }
        return walks.count + values.count + settingsMoves.count
    }

    /// The graph's own values that changed — channel, group and aux volumes (with mute and
    /// solo, as their mix gains), send levels, channel pans, the master's volume and pan — as the plan's motions to
    /// set; nil when anything else of the preset but its nodes changed, or a value has no motion
    /// (the master's pan kernel exists only when the pan is not 0).
    func graphMoves(to next: Preset) -> [(ValueMotion, Double)]? {
        guard case .graph(let a) = preset.form, case .graph(let b) = next.form else {
            return preset.replacingNodes(with: next.allNodes) == next ? [] : nil
        }
        // Everything but the movable values (and the nodes, compared by the caller) must match.
        var same = a
        for k in same.channels.indices where k < b.channels.count {
            same.channels[k].volume = b.channels[k].volume; same.channels[k].pan = b.channels[k].pan
            same.channels[k].mute = b.channels[k].mute; same.channels[k].solo = b.channels[k].solo
        }
        for k in same.groups.indices where k < b.groups.count { same.groups[k].volume = b.groups[k].volume; same.groups[k].mute = b.groups[k].mute }
        for k in same.auxes.indices where k < b.auxes.count { same.auxes[k].volume = b.auxes[k].volume; same.auxes[k].mute = b.auxes[k].mute }
        // Send levels move; which sends there are, and pre or post, is structure.
        func levels(_ x: [SendSpec], _ y: [SendSpec]) -> [SendSpec] {
            guard x.count == y.count else { return x }
            return zip(x, y).map { var s = $0; s.level = $1.level; return s }
        }
        for k in same.channels.indices where k < b.channels.count { same.channels[k].sends = levels(same.channels[k].sends, b.channels[k].sends) }
        for k in same.groups.indices where k < b.groups.count { same.groups[k].sends = levels(same.groups[k].sends, b.groups[k].sends) }
        same.master.volume = b.master.volume; same.master.pan = b.master.pan
        var candidate = preset
        candidate.form = .graph(same)
        guard candidate.replacingNodes(with: next.allNodes) == next else { return nil }
        var moves: [(ValueMotion, Double)] = []
        func move(_ key: String, _ from: Double, _ to: Double) -> Bool {
            guard from != to else { return true }
            guard let m = plan.valueMotions[key] else { return false }
            moves.append((m, to))
            return true
        }
        let soloA = a.channels.contains { $0.solo }, soloB = b.channels.contains { $0.solo }
        /// A path's sends: each one's gain, its level (times the fader after it for a post-fader send).
        func sends(_ id: String, _ x: [SendSpec], _ y: [SendSpec], _ gx: Double, _ gy: Double) -> Bool {
            for (sx, sy) in zip(x, y) {
                let from = Double(Float(sx.level * (sx.preFader ? 1 : gx))), to = Double(Float(sy.level * (sy.preFader ? 1 : gy)))
                guard move("send:\(id):\(sy.aux)", from, to) else { return false }
            }
            return true
        }
        for (x, y) in zip(a.channels, b.channels) {
            let gx = !x.mute && (!soloA || x.solo) ? Double(Float(x.volume)) : 0, gy = !y.mute && (!soloB || y.solo) ? Double(Float(y.volume)) : 0
            guard move("mix:\(y.id)", gx, gy), move("pan:\(y.id)", x.pan, y.pan), sends(y.id, x.sends, y.sends, gx, gy) else { return nil }
        }
        for (x, y) in zip(a.groups, b.groups) {
            let gx = x.mute ? 0 : Double(Float(x.volume)), gy = y.mute ? 0 : Double(Float(y.volume))
            guard move("mix:\(y.id)", gx, gy), sends(y.id, x.sends, y.sends, gx, gy) else { return nil }
        }
        for (x, y) in zip(a.auxes, b.auxes) {
            guard move("mix:\(y.id)", x.mute ? 0 : Double(Float(x.volume)), y.mute ? 0 : Double(Float(y.volume))) else { return nil }
        }
        guard move("master:volume", a.master.volume, b.master.volume), move("master:pan", a.master.pan, b.master.pan) else { return nil }
        return moves
    }

    /// The designs between two settings of one filter or EQ node: parameters interpolated
    /// (frequency and Q on a log scale, gain in dB) in steps of at most a sixth of an octave
    /// and 1 dB, at most ``CoefficientMotion/maximumPoints``; the last point designed as a compile
    /// designs it (identity sections kept, so a flat band keeps its place). Sub-blocks per point:
    /// a walk lasts 16 sub-blocks (10.7 ms at 48 kHz) for one point, 2 a point beyond 8 points.
    /// nil when the kinds differ in anything but those parameters.
    static func designPath(from a: NodeKind, to b: NodeKind, sampleRate: Double) -> (points: [[BiquadCoefficients]], stepsPerPoint: Int)? {
        let from: [FilterDesign], to: [FilterDesign]
        // A FIR (linear or minimum phase) is no sections: a new plan (its kernel crossfades).
        if let x = a.settings(as: FilterSettings.self), let y = b.settings(as: FilterSettings.self), x.phase == nil && y.phase == nil {
            (from, to) = ([x.design], [y.design])
        } else if let x = a.settings(as: EQSettings.self), let y = b.settings(as: EQSettings.self), x.bands.count == y.bands.count,
                  x.phase == nil && y.phase == nil {
            (from, to) = (x.bands.map(\.design), y.bands.map(\.design))
        } else {
            return nil
        }
        for (x, y) in zip(from, to) where x.type != y.type || x.slopeDBPerOctave != y.slopeDBPerOctave || x.method != y.method { return nil }
        var count = 1.0
        for (x, y) in zip(from, to) {
            count = max(count, abs(log2(y.frequencyHz / x.frequencyHz)) * 6, abs(y.gainDB - x.gainDB), abs(log2(y.q / x.q)) * 6)
        }
        let points = min(CoefficientMotion.maximumPoints, Int(count.rounded(.up)))
        let path = (1...points).map { k -> [BiquadCoefficients] in
            let t = Double(k) / Double(points)
            return zip(from, to).flatMap { x, y -> [BiquadCoefficients] in
                var d = y
                if k < points {
                    d.frequencyHz = x.frequencyHz * pow(y.frequencyHz / x.frequencyHz, t)
                    d.gainDB = x.gainDB + (y.gainDB - x.gainDB) * t
                    d.q = x.q * pow(y.q / x.q, t)
                    // Points on the way: the bilinear design (0.07 µs, where a matched one with
                    // its fit takes 0.36 ms); the last point is the node's own design.
                    d.method = .bilinear
                }
                let designed = k < points ? d.sections(sampleRate: sampleRate) : DesignCache.shared.sections(d, sampleRate: sampleRate)
                return designed.isEmpty ? [.identity] : designed  // as a live plan keeps a flat band
            }
        }
        return (path, max(2, 16 / points))
    }
}

extension Preset {
    /// This preset with its nodes, in ``allNodes`` order, replaced by `nodes` (same count).
    package func replacingNodes(with nodes: [NodeSpec]) -> Preset {
        var copy = self
        var rest = nodes[...]
        func take(_ n: Int) -> [NodeSpec] { defer { rest = rest.dropFirst(n) }; return Array(rest.prefix(n)) }
        switch form {
        case .chain(let chain): copy.form = .chain(take(chain.count))
        case .graph(var g):
            for k in g.channels.indices { g.channels[k].chain = take(g.channels[k].chain.count) }
            for k in g.groups.indices { g.groups[k].chain = take(g.groups[k].chain.count) }
            for k in g.auxes.indices { g.auxes[k].chain = take(g.auxes[k].chain.count) }
            g.master.chain = take(g.master.chain.count)
            copy.form = .graph(g)
        }
        return copy
    }
}
