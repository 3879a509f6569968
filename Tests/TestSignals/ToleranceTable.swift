/// Every numeric limit the test suites judge by, in one table: the limit, the worst value
/// measured on this project's reference machine when the limit was set, and why the limit
/// sits where it does. A limit is at most about 2× the measured worst case unless the row
/// says otherwise, so a regression shows. Printed lines in the tests report the measured
/// value beside the limit; update `measured` here when a change moves it.
public struct Tolerance: Sendable {
    public let limit: Double
    public let measured: Double
    public let unit: String
    public let why: String

    /// Row of the table by name.
    public static subscript(_ name: Name) -> Tolerance { table[name]! }

    public enum Name: String, CaseIterable, Sendable {
        // Filter designs against their analog prototypes (TimbreDSPTests)
        case eqMatched44k, eqMatched48k, eqMatched96k
        case eqKernelVsDesign
        case peakGainAtCenter
        case peakMatchedThirdOctave44k, peakMatchedThirdOctave48k, peakMatchedThirdOctave96k
        case boostThenCutFlat
        case butterworthCutoff, butterworthHighPass, butterworthLowPass12to36, butterworthLowPass48
        case highPass20HzAt96k
        case kernelVsScalarReference
        // Engine and live paths
        case batchFlat
        case concurrentFlat
        case liveVsOffline
        case nanRecoveryBlocks
        case soxOracle
    }

    static let table: [Name: Tolerance] = [
        .eqMatched44k: Tolerance(limit: 0.45, measured: 0.403, unit: "dB", why: "issue #6 asks ≤ 0.5 dB; worst: 7.1 kHz high shelf, Q 2, +20 dB (gain at f0 pinned exact, so the error moves to the skirt)"),
        .eqMatched48k: Tolerance(limit: 0.35, measured: 0.268, unit: "dB", why: "issue #6 asks ≤ 0.5 dB; worst: 7.1 kHz high shelf, Q 2, +20 dB"),
        .eqMatched96k: Tolerance(limit: 0.03, measured: 0.014, unit: "dB", why: "issue #6 asks tighter at 96 kHz; the band ends at 0.42·Nyquist, where matching is easy"),
        .eqKernelVsDesign: Tolerance(limit: 0.0001, measured: 0.00001, unit: "dB", why: "the Double kernel runs the designed coefficients; Float I/O rounding accumulates in the DTFT of long impulse responses (narrow low bands), so 10× the worst measured"),
        .peakGainAtCenter: Tolerance(limit: 0.001, measured: 0.00001, unit: "dB", why: "ω0 is pinned in every design; 0.001 dB is Float output rounding headroom"),
        .peakMatchedThirdOctave44k: Tolerance(limit: 0.3, measured: 0.158, unit: "dB", why: "±12 dB, Q 0.5–4 (the first issue's table)"),
        .peakMatchedThirdOctave48k: Tolerance(limit: 0.2, measured: 0.093, unit: "dB", why: "±12 dB, Q 0.5–4"),
        .peakMatchedThirdOctave96k: Tolerance(limit: 0.01, measured: 0.005, unit: "dB", why: "±12 dB, Q 0.5–4"),
        .boostThenCutFlat: Tolerance(limit: 0.001, measured: 0.000001, unit: "dB", why: "a cut is the exact inverse of its boost; the limit is Float I/O rounding"),
        .butterworthCutoff: Tolerance(limit: 0.01, measured: 0.005, unit: "dB", why: "−3.01 dB at the cutoff"),
        .butterworthHighPass: Tolerance(limit: 0.3, measured: 0.166, unit: "dB", why: "every slope, 20 Hz–0.45·fs"),
        .butterworthLowPass12to36: Tolerance(limit: 0.6, measured: 0.488, unit: "dB", why: "worst at 36 dB/oct near 0.45·fs; 1.2× because the stopband floor (−100 dB) decides the worst point"),
        .butterworthLowPass48: Tolerance(limit: 0.75, measured: 0.68, unit: "dB", why: "48 dB/oct low-pass near 0.45·fs where four sections must fold the analog stopband; 1.1×, documented in the README"),
        .highPass20HzAt96k: Tolerance(limit: 0.1, measured: 0.05, unit: "dB", why: "Double state keeps a 20 Hz pole pair at 96 kHz exact"),
        .kernelVsScalarReference: Tolerance(limit: 2.5e-7, measured: 1.24e-7, unit: "of RMS", why: "Double TDF-II cascade (AVX2+FMA wavefront or portable loop) vs a scalar Double direct form I: one Float rounding of the output"),
        .batchFlat: Tolerance(limit: 1e-6, measured: 0, unit: "linear", why: "boost + inverse cut in Double, Float I/O: measured exactly 0; the limit allows a few Float ulps; a torn batch is ≥ 1e-2"),
        .concurrentFlat: Tolerance(limit: 1e-6, measured: 0, unit: "linear", why: "flat presets loaded concurrently with the render: measured exactly 0; a torn plan would be ≥ 1e-2"),
        .liveVsOffline: Tolerance(limit: 0, measured: 0, unit: "linear", why: "the same plan and block-size-independent kernels: bit-identical"),
        .nanRecoveryBlocks: Tolerance(limit: 1, measured: 1, unit: "periods", why: "the block holding the NaN is silenced; the next period is clean"),
        .soxOracle: Tolerance(limit: 1.2e-7, measured: 6e-8, unit: "linear", why: "same RBJ formulas in sox (Double) and Timbre on float files: one Float ulp at full scale (2⁻²⁴)"),
    ]
}
