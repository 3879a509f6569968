import Foundation

/// A stereo pair through a 2 × 2 matrix, each entry ramped linearly over 25 ms when it changes:
/// every stereo tool (width, mid and side gains, balance, swap, polarity, mono) is such a
/// matrix, so one kernel runs them all and any change between them is click-free.
///
/// ```
/// [L']   [ll  rl] [L]
/// [R'] = [lr  rr] [R]
/// ```
public struct StereoMatrix: Sendable, Equatable {
    /// L' = ll·L + rl·R,  R' = lr·L + rr·R.
    public var ll: Double, rl: Double, lr: Double, rr: Double

    public init(ll: Double, rl: Double, lr: Double, rr: Double) { self.ll = ll; self.rl = rl; self.lr = lr; self.rr = rr }

    public static let identity = StereoMatrix(ll: 1, rl: 0, lr: 0, rr: 1)

    /// This matrix after `first` (the product self × first).
    public func after(_ first: StereoMatrix) -> StereoMatrix {
        StereoMatrix(ll: ll * first.ll + rl * first.lr, rl: ll * first.rl + rl * first.rr,
                     lr: lr * first.ll + rr * first.lr, rr: lr * first.rl + rr * first.rr)
    }

    /// The stereo tools in their order: swap the sides, invert either polarity, scale mid
    /// (M = (L + R)/2) and side (S = (L − R)/2) — width scales S again — then balance (the
    /// far side turned down: −1 silences the right, +1 the left), then mono (both (L + R)/2).
    public static func tools(swap: Bool, invertLeft: Bool, invertRight: Bool, width: Double, midGain: Double, sideGain: Double,
                             balance: Double, mono: Bool) -> StereoMatrix {
        var m = swap ? StereoMatrix(ll: 0, rl: 1, lr: 1, rr: 0) : .identity
        m = StereoMatrix(ll: invertLeft ? -1 : 1, rl: 0, lr: 0, rr: invertRight ? -1 : 1).after(m)
        // L' = M' + S', R' = M' − S' with M' = g_m (L + R)/2, S' = g_s·w (L − R)/2.
        let gm = midGain / 2, gs = sideGain * width / 2
        m = StereoMatrix(ll: gm + gs, rl: gm - gs, lr: gm - gs, rr: gm + gs).after(m)
        let b = min(1, max(-1, balance))
        m = StereoMatrix(ll: b > 0 ? 1 - b : 1, rl: 0, lr: 0, rr: b < 0 ? 1 + b : 1).after(m)
        if mono { m = StereoMatrix(ll: 0.5, rl: 0.5, lr: 0.5, rr: 0.5).after(m) }
        return m
    }
}

/// The kernel: ``StereoMatrix`` on channels 0 and 1 in place, ramped.
public struct StereoMatrixKernel: Sendable {
    public var ll: LinearRamp, rl: LinearRamp, lr: LinearRamp, rr: LinearRamp
    public let rampFrames: Int

    public init(_ m: StereoMatrix, sampleRate: Double, rampSeconds: Double = GainKernel.defaultRampSeconds) {
        ll = LinearRamp(value: Float(m.ll)); rl = LinearRamp(value: Float(m.rl)); lr = LinearRamp(value: Float(m.lr)); rr = LinearRamp(value: Float(m.rr))
        rampFrames = max(1, Int((rampSeconds * sampleRate).rounded()))
    }

    /// Ramps to `m` (audio thread, at a block's start).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func set(_ m: StereoMatrix) {
        ll.setTarget(Float(m.ll), frames: rampFrames); rl.setTarget(Float(m.rl), frames: rampFrames)
        lr.setTarget(Float(m.lr), frames: rampFrames); rr.setTarget(Float(m.rr), frames: rampFrames)
    }

    /// Starts from `previous`'s current matrix and ramps to this kernel's.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: StereoMatrixKernel) {
        let target = StereoMatrix(ll: Double(ll.target), rl: Double(rl.target), lr: Double(lr.target), rr: Double(rr.target))
        ll = LinearRamp(value: previous.ll.current); rl = LinearRamp(value: previous.rl.current)
        lr = LinearRamp(value: previous.lr.current); rr = LinearRamp(value: previous.rr.current)
        set(target)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let l = channels[0], r = channels[1]
        if !ll.isRamping && !rl.isRamping && !lr.isRamping && !rr.isRamping {
            let a = ll.target, b = rl.target, c = lr.target, d = rr.target
            for i in 0..<frameCount {
                let x = l[i], y = r[i]
                l[i] = a * x + b * y; r[i] = c * x + d * y
            }
            return
        }
        for i in 0..<frameCount {
            let x = l[i], y = r[i]
            l[i] = ll.value(at: i) * x + rl.value(at: i) * y
            r[i] = lr.value(at: i) * x + rr.value(at: i) * y
        }
        ll.advance(by: frameCount); rl.advance(by: frameCount); lr.advance(by: frameCount); rr.advance(by: frameCount)
    }
}
