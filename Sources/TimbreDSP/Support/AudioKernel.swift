/// What a kernel is prepared for: the stream's sample rate, its channels and the largest block
/// one `process` call may carry (for stream converters: the most output frames per call).
public struct KernelFormat: Hashable, Sendable {
    public var sampleRate: Double
    public var channelCount: Int
    public var maximumBlockFrames: Int

    public init(sampleRate: Double, channelCount: Int, maximumBlockFrames: Int) {
        precondition(sampleRate > 0 && channelCount >= 1 && maximumBlockFrames >= 1, "a kernel format needs a rate, a channel and a frame")
        self.sampleRate = sampleRate; self.channelCount = channelCount; self.maximumBlockFrames = maximumBlockFrames
    }
}

/// The contract every TimbreDSP kernel keeps (JUCE's `prepare` / `process` / `reset`, with
/// Timbre's two additions for plan swaps and poisoned input).
///
/// - **Prepare**: ``init(_:format:)`` allocates all the memory the kernel will ever use;
///   nothing after it allocates, locks or does I/O.
/// - **Process**: in place on planar channels (``InPlaceAudioKernel``), or, for the stream
///   converters (resamplers, time-stretch, pitch shift), from input to output in their own
///   call shape. Every `process` is real-time safe.
/// - **Reset** (``reset()``): the state as if preceded by silence. Real-time safe.
/// - **Clear non-finite** (``clearNonFinite()``): state that holds NaN or infinity after a
///   poisoned block is cleared, so the next block is clean again. Real-time safe.
/// - **Continue** (``ContinuableAudioKernel/continueState(from:)``): a kernel of the same shape
///   takes over another's state, so a redesigned filter or a new plan continues the stream.
///
/// **One owner.** Every kernel that holds memory is `~Copyable`: it cannot be copied by
/// accident, and its `deinit` frees its memory exactly once when its one owner (a plan's raw
/// storage, a class, a local) ends it. There is no `deallocate()` to forget or call twice. An
/// owner that frees on the control thread keeps the audio thread free of `free`.
public protocol AudioKernel: ~Copyable {
    /// What the kernel needs besides the format (a filter's sections, a compressor's settings,
    /// a resampler's ratio; `Void` for meters).
    associatedtype Setup
    /// Prepares a kernel for `format`: all its memory is allocated here. Nil where `setup`
    /// cannot be built (a resampler ratio that would need too large a filter).
    init?(_ setup: Setup, format: KernelFormat)
    /// Clears the state, as if the kernel had been fed silence since it was prepared.
    func reset()
    /// Clears state holding NaN or infinity (after non-finite input); true when there was some.
    @discardableResult func clearNonFinite() -> Bool
}

extension AudioKernel where Setup == Void, Self: ~Copyable {
    /// A kernel that needs nothing besides its format (the meters).
    public init?(format: KernelFormat) { self.init((), format: format) }
}

/// A kernel whose `process` works in place on planar channels (filters, dynamics, delays;
/// meters read without writing).
public protocol InPlaceAudioKernel: AudioKernel, ~Copyable {
    /// Processes `frameCount` (≤ the format's `maximumBlockFrames`) frames of every channel.
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int)
}

/// A kernel a plan swap carries across: the new plan's kernel continues the old one's state.
///
/// The stream converters (resamplers, time-stretch, pitch shift) are not continued this way:
/// their state is a position in one stream, and a live node keeps the one converter it has
/// across plans instead of copying it.
public protocol ContinuableAudioKernel: AudioKernel, ~Copyable {
    /// Takes over `previous`'s state when both have the same shape (channels, lengths, rate);
    /// otherwise leaves this kernel's state as it is. Real-time safe.
    func continueState(from previous: borrowing Self)
}
