/// A value that moves linearly to a new target over a fixed number of frames.
///
/// Linear in the value itself (use it for linear gains): the largest step per frame is
/// `|target − start| / length`, which is what bounds the click of a change. Position-based
/// (`value = start + slope · k`, `slope = (target − start) / length`, k frames into the ramp),
/// so splitting the frames into blocks of any size yields bit-identical values.
///
/// The block operations (``scale(_:count:)``, ``scale(from:into:count:)``,
/// ``accumulate(from:into:count:)``, ``crossfade(from:to:into:count:)``) run in two plain
/// loops — the ramping frames, then the frames at the target — with no branch or division per
/// sample, so they vectorise.
public struct LinearRamp: Sendable, Equatable {
    public var start: Float
    public var target: Float
    public var length: Int
    public var position: Int

    public init(value: Float) {
        start = value; target = value; length = 0; position = 0
    }

    /// A ramp from `start` to `target` over `length` frames, `position` frames in.
    public init(start: Float, target: Float, length: Int, position: Int) {
        self.start = start; self.target = target; self.length = length; self.position = position
    }

    /// The value at the next frame.
    @inlinable public var current: Float { value(at: 0) }
    @inlinable public var isRamping: Bool { position < length }

    /// The value `offset` frames from now.
    @inlinable public func value(at offset: Int) -> Float {
        let k = position + offset
        if k >= length { return target }
        return start + slope * Float(Int32(truncatingIfNeeded: k))
    }

    /// Change per frame while ramping.
    @inlinable var slope: Float { length > 0 ? (target - start) / Float(length) : 0 }

    /// How many of the next `count` frames are still ramping.
    @inlinable func rampingFrames(_ count: Int) -> Int { max(0, min(count, length - position)) }

    /// `p[n] *= value(at: n)` for the next `count` frames (does not advance).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func scale(_ p: UnsafeMutablePointer<Float>, count: Int) {
        let m = rampingFrames(count), a = start, d = slope, k0 = Int32(truncatingIfNeeded: position), g = target
        for n in 0..<m { p[n] *= a + d * Float(k0 &+ Int32(truncatingIfNeeded: n)) }
        if g != 1 { for n in m..<max(m, count) { p[n] *= g } }
    }

    /// `destination[n] = source[n] · value(at: n)` for the next `count` frames (does not advance).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func scale(from source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let m = rampingFrames(count), a = start, d = slope, k0 = Int32(truncatingIfNeeded: position), g = target
        for n in 0..<m { destination[n] = source[n] * (a + d * Float(k0 &+ Int32(truncatingIfNeeded: n))) }
        for n in m..<max(m, count) { destination[n] = source[n] * g }
    }

    /// `destination[n] += source[n] · value(at: n)` for the next `count` frames (does not advance).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func accumulate(from source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let m = rampingFrames(count), a = start, d = slope, k0 = Int32(truncatingIfNeeded: position), g = target
        for n in 0..<m { destination[n] += source[n] * (a + d * Float(k0 &+ Int32(truncatingIfNeeded: n))) }
        if g == 1 {
            for n in m..<max(m, count) { destination[n] += source[n] }
        } else if g != 0 {
            for n in m..<max(m, count) { destination[n] += source[n] * g }
        }
    }

    /// `destination[n] = a[n] + (b[n] − a[n]) · value(at: n)` for the next `count` frames: a
    /// crossfade from `a` (value 0) to `b` (value 1); `destination` may be `b` (does not advance).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func crossfade(from a: UnsafePointer<Float>, to b: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let m = rampingFrames(count), s = start, d = slope, k0 = Int32(truncatingIfNeeded: position), g = target
        for n in 0..<m { destination[n] = a[n] + (b[n] - a[n]) * (s + d * Float(k0 &+ Int32(truncatingIfNeeded: n))) }
        if g == 1 {
            if UnsafePointer(destination) != b { for n in m..<max(m, count) { destination[n] = b[n] } }
        } else {
            for n in m..<max(m, count) { destination[n] = a[n] + (b[n] - a[n]) * g }
        }
    }

    /// Starts a ramp from the current value to `newTarget` over `frames` frames (0 jumps).
    @inlinable public mutating func setTarget(_ newTarget: Float, frames: Int) {
        let now = current
        start = now; target = newTarget; length = max(0, frames); position = 0
        if length == 0 { start = newTarget }
    }

    /// Advances by `frames` frames.
    @inlinable public mutating func advance(by frames: Int) {
        if position < length { position = min(length, position + frames) }
    }
}
