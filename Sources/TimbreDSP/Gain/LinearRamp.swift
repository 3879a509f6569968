/// A value that moves linearly to a new target over a fixed number of frames.
///
/// Linear in the value itself (use it for linear gains): the largest step per frame is
/// `|target − start| / length`, which is what bounds the click of a change. Position-based
/// (`value = start + (target − start) · k / length`), so splitting the frames into blocks of
/// any size yields bit-identical values.
public struct LinearRamp: Sendable, Equatable {
    public var start: Float
    public var target: Float
    public var length: Int
    public var position: Int

    public init(value: Float) {
        start = value; target = value; length = 0; position = 0
    }

    /// The value at the next frame.
    @inlinable public var current: Float { value(at: 0) }
    @inlinable public var isRamping: Bool { position < length }

    /// The value `offset` frames from now.
    @inlinable public func value(at offset: Int) -> Float {
        let k = position + offset
        if k >= length { return target }
        return start + (target - start) * (Float(k) / Float(length))
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
