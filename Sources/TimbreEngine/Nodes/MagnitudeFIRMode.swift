import TimbreDSP

/// The FIR mode an `eq` and the filter nodes share: `phase` and `taps` read the same way, the
/// default length from the narrowest width, and the lowering into one convolution kernel of the
/// analog magnitude (``MagnitudeFIRState``), crossfaded live from the node's previous one.
enum MagnitudeFIRMode {
    /// Taps a FIR eq or filter may be given.
    static let tapsRange: ClosedRange<Double> = 256...65_536

    /// `phase` and `taps` of a `kind` node (`taps` only beside a phase, a whole number).
    static func decode(_ o: inout ObjectReader, kind: String) throws(PresetError) -> (phase: MagnitudeFIRDesign.Phase?, taps: Int?) {
        let phase = try o.optional("phase")?.oneOf(MagnitudeFIRDesign.Phase.self)
        guard let field = try o.optional("taps") else { return (phase, nil) }
        let n = try field.number(in: tapsRange, unit: "")
        guard n == n.rounded() else { throw PresetError(path: field.path, "\(JSONValue.number(n).brief) is not a whole number of taps") }
        guard phase != nil else { throw PresetError(path: field.path, "taps sets the FIR of a linear- or minimum-phase \(kind): give \"phase\" too") }
        return (phase, Int(n))
    }

    /// 24 × fs over the narrowest `width` (Hz), as a power of two within 2,048…65,536: the
    /// Blackman window's smoothing (about 3·fs/taps) stays far inside it.
    static func taps(width: Double, sampleRate: Double) -> Int {
        let wanted = 24 * sampleRate / max(width, 1)
        var taps = 2_048
        while taps < Int(wanted.rounded(.up)) && taps < 65_536 { taps *= 2 }
        return taps
    }

    /// One FIR of `magnitudeDB` for `settings` at the plan's rate, prepared once per settings
    /// and rate (an edit designs a new one on the control thread; the kernel crossfades to it),
    /// its latency reported.
    static func lower<Settings: Equatable>(_ settings: Settings, phase: MagnitudeFIRDesign.Phase, taps: Int, into node: inout NodeLowering,
                                           magnitudeDB: @escaping (Double) -> Double) throws(PresetError) {
        let rate = node.sampleRate
        let previous = node.previousState(MagnitudeFIRState<Settings>.self)?.filter
        let state = try node.sharedState(MagnitudeFIRState<Settings>.self, reuse: { $0.settings == settings && $0.sampleRate == rate }) {
            MagnitudeFIRState(settings, sampleRate: rate, taps: taps, phase: phase, magnitudeDB: magnitudeDB)
        }
        node.retain(state)
        node.addConvolution(state.filter, fadingFrom: previous, latency: MagnitudeFIRDesign.latency(taps, phase: phase))
    }
}
