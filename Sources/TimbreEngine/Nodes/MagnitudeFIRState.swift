import TimbreDSP

/// A FIR node's taps designed from a magnitude (an `eq`'s bands, a filter's design) and their
/// spectra, shared by the plans that continue the node with the same settings at the same rate.
final class MagnitudeFIRState<Settings: Equatable> {
    let settings: Settings
    let sampleRate: Double
    let filter: ConvolutionFilter
    init(_ s: Settings, sampleRate: Double, taps: Int, phase: MagnitudeFIRDesign.Phase, magnitudeDB: (Double) -> Double) {
        settings = s; self.sampleRate = sampleRate
        let h = MagnitudeFIRDesign.design(length: taps, sampleRate: sampleRate, phase: phase, magnitudeDB: magnitudeDB)
        filter = ConvolutionFilter(responses: [h], layout: PartitionLayout(length: h.count))
    }
}
