import Foundation

/// Headphone crossfeed after Bauer's stereophonic-to-binaural network ("Stereophonic
/// Earphones and Binaural Loudspeakers", JAES 9(2), 1961), as Boris Mikhaylov's libbs2b 3.1
/// designs it: each ear gets its own side through a first-order high-boost and the other side
/// through a first-order low-pass, so low frequencies reach both ears as from speakers in front
/// while the highs stay apart.
///
/// From the cut frequency Fc (300–2000 Hz) and the feed level F (1–15 dB, the low-pass's gain
/// below the high-boost's):
/// - GB_lo = −5F/6 − 3 dB, GB_hi = F/6 − 3 dB; G_lo = 10^(GB_lo/20), G_hi = 1 − 10^(GB_hi/20);
/// - the high-boost's corner Fc_hi = Fc · 2^((GB_lo − 20·log10 G_hi)/12);
/// - low-pass: y[n] = G_lo(1 − x_lo)·u[n] + x_lo·y[n−1], x_lo = e^(−2π·Fc/fs);
/// - high-boost: y[n] = (1 − G_hi(1 − x_hi))·u[n] − x_hi·u[n−1] + x_hi·y[n−1], x_hi = e^(−2π·Fc_hi/fs);
/// - out_L = g·(hi_L + lo_R), out_R = g·(hi_R + lo_L), g = 1/(1 − G_hi + G_lo), which keeps a
///   centred (mono) signal's low end at unity.
///
/// libbs2b's levels: its default 700 Hz / 4.5 dB, Chu Moy's 700 Hz / 6 dB, Jan Meier's
/// 650 Hz / 9.5 dB. Unlike libbs2b the output is not clipped at ±1. State in `Double`.
public struct BauerCrossfeed: Sendable {
    public static let frequencyRange: ClosedRange<Double> = 300...2000
    public static let feedRange: ClosedRange<Double> = 1...15

    var a0Low = 0.0, b1Low = 0.0, a0High = 0.0, a1High = 0.0, b1High = 0.0, gain = 1.0
    /// Per side: the low-pass's and the high-boost's last outputs, and the last input.
    var low = (0.0, 0.0), high = (0.0, 0.0), last = (0.0, 0.0)

    public init(frequency: Double = 700, feedDB: Double = 4.5, sampleRate: Double) {
        set(frequency: frequency, feedDB: feedDB, sampleRate: sampleRate)
    }

    /// New settings from the next sample on; the filters' state carries over.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func set(frequency: Double, feedDB: Double, sampleRate: Double) {
        _unsafePerformance {
            let lowDB = -5 * feedDB / 6 - 3, highDB = feedDB / 6 - 3
            let gLow = pow(10, lowDB / 20), gHigh = 1 - pow(10, highDB / 20)
            let highFrequency = frequency * pow(2, (lowDB - 20 * log10(gHigh)) / 12)
            let xLow = exp(-2 * Double.pi * frequency / sampleRate), xHigh = exp(-2 * Double.pi * highFrequency / sampleRate)
            a0Low = gLow * (1 - xLow); b1Low = xLow
            a0High = 1 - gHigh * (1 - xHigh); a1High = -xHigh; b1High = xHigh
            gain = 1 / (1 - gHigh + gLow)
        }
    }

    /// The magnitude of the direct (same side) and crossed paths at `hz`, linear, with the
    /// output gain: what an impulse on one side becomes on each (for tests and plots).
    public func response(at hz: Double, sampleRate: Double) -> (direct: Double, crossed: Double) {
        let w = 2 * Double.pi * hz / sampleRate, c = cos(w), s = -sin(w)
        // H(z) = (a0 + a1 z⁻¹)/(1 − b1 z⁻¹) at z = e^{jω}.
        func magnitude(_ a0: Double, _ a1: Double, _ b1: Double) -> Double {
            let nr = a0 + a1 * c, ni = a1 * s, dr = 1 - b1 * c, di = -b1 * s
            return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
        }
        return (gain * magnitude(a0High, a1High, b1High), gain * magnitude(a0Low, 0, b1Low))
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func reset() { low = (0, 0); high = (0, 0); last = (0, 0) }

    /// Takes over `previous`'s filter state (the settings stay this one's).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueState(from previous: BauerCrossfeed) {
        low = previous.low; high = previous.high; last = previous.last
    }

    /// Clears the state if NaN or infinity reached it; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func clearNonFinite() -> Bool {
        let fine = low.0.isFinite && low.1.isFinite && high.0.isFinite && high.1.isFinite && last.0.isFinite && last.1.isFinite
        if !fine { reset() }
        return !fine
    }

    /// Crossfeeds channels 0 (left) and 1 (right) in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let l = channels[0], r = channels[1]
        let a0l = a0Low, b1l = b1Low, a0h = a0High, a1h = a1High, b1h = b1High, g = gain
        var (lowL, lowR) = low, (highL, highR) = high, (lastL, lastR) = last
        for i in 0..<frameCount {
            let x = Double(l[i]), y = Double(r[i])
            lowL = a0l * x + b1l * lowL; lowR = a0l * y + b1l * lowR
            highL = a0h * x + a1h * lastL + b1h * highL; highR = a0h * y + a1h * lastR + b1h * highR
            lastL = x; lastR = y
            l[i] = Float(g * (highL + lowR)); r[i] = Float(g * (highR + lowL))
        }
        low = (lowL, lowR); high = (highL, highR); last = (lastL, lastR)
    }
}
