import CTimbreSupport

/// The low-latency engine of ``Resampler``: a band-limited converter for planar Float audio
/// that computes every output frame as one dot product with a phase of a
/// ``PolyphaseFilterBank`` (fixed rational ratio, pull model, real-time safe). Its lookahead
/// is half the filter (``latencyInputFrames``), so it suits live paths; the `high` quality
/// of ``Resampler`` uses the block-FFT ``SpectralResampler`` instead, which costs a fifth as
/// much per frame at the price of a block of lookahead.
///
/// The caller asks how many input frames the next `n` output frames need
/// (``inputFramesNeeded(forOutputFrames:)``), fetches exactly that many from its source and
/// hands both to `process(input:inputFrames:output:outputFrames:)`, which produces exactly
/// `n` frames. Nothing is allocated after `init`; `process` is `@_noLocks`.
///
/// Alignment: output frame n is the input signal at time n·M/L (input frames), so output 0
/// is input 0 and a file converts without delay — the ``latencyInputFrames`` are lookahead
/// the caller supplies (a file source reads ahead; a live input would be delayed by them).
/// The output of a whole signal of N frames has ⌈N·L/M⌉ frames
/// (``Resampler/outputFrames(forInputFrames:)``); the tail is flushed with zeros.
///
/// The result does not depend on how the stream is split into calls.
///
/// ```swift
/// var resampler = PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2, maximumOutputFrames: 1024)!
/// defer { resampler.deallocate() }
/// let need = resampler.inputFramesNeeded(forOutputFrames: 1024)
/// // read `need` frames into `input`, then:
/// resampler.process(input: input, inputFrames: need, output: output, outputFrames: 1024)
/// ```
public struct PolyphaseResampler: ~Copyable {
    public let bank: PolyphaseFilterBank
    public let channelCount: Int
    public let maximumOutputFrames: Int
    /// Input frames of lookahead: the input reaches this far past the output position.
    public var latencyInputFrames: Int { bank.halfLength }
    /// The lookahead in output frames (what a live stream would be delayed by).
    public var latencyOutputFrames: Double { Double(bank.halfLength) * bank.ratio.value }
    public var ratio: RationalRatio { bank.ratio }

    /// Per channel `capacity` Doubles of history: absolute input frames `start ..< start + count`.
    @usableFromInline let history: UnsafeMutablePointer<Double>
    @usableFromInline let capacity: Int
    /// [0] absolute index of history[0], [1] frames held, [2] integer position of the next
    /// output, [3] its phase (0 ..< L).
    @usableFromInline let cursor: UnsafeMutablePointer<Int>

    /// A converter between two whole-Hz rates; nil if the pair needs a bigger table than
    /// ``PolyphaseFilterBank/maximumCoefficients`` (see ``init(ratio:channelCount:quality:maximumOutputFrames:)``).
    public init?(inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .high, maximumOutputFrames: Int) {
        self.init(ratio: RationalRatio(inputRate: inputRate, outputRate: outputRate), channelCount: channelCount,
                  quality: quality, maximumOutputFrames: maximumOutputFrames)
    }

    /// A converter producing `ratio.upsampling` output frames per `ratio.downsampling` input
    /// frames, at most `maximumOutputFrames` per `process` call.
    public init?(ratio: RationalRatio, channelCount: Int, quality: ResamplerQuality = .high, maximumOutputFrames: Int) {
        guard channelCount >= 1, maximumOutputFrames >= 1,
              let bank = PolyphaseFilterBank(ratio: ratio, quality: quality) else { return nil }
        self.bank = bank
        self.channelCount = channelCount
        self.maximumOutputFrames = maximumOutputFrames
        // History kept between calls (< K frames) + the most one call can add.
        let maximumInput = (maximumOutputFrames * ratio.downsampling) / ratio.upsampling + 2
        capacity = self.bank.tapsPerPhase + maximumInput + 1
        history = .allocate(capacity: channelCount * capacity)
        cursor = .allocate(capacity: 4)
        cursor.initialize(repeating: 0, count: 4)
        reset()
    }

    /// Frees the history (the bank frees its own table).
    deinit { history.deallocate(); cursor.deallocate() }

    /// Back to the start of a stream: silence before input frame 0, output 0 at input 0.
    public func reset() {
        history.update(repeating: 0, count: channelCount * capacity)
        // Frames −(K/2 − 1) … −1 are the silence before the signal.
        cursor[0] = -(bank.halfLength - 1)
        cursor[1] = bank.halfLength - 1
        cursor[2] = 0
        cursor[3] = 0
    }

    /// The most input frames ``inputFramesNeeded(forOutputFrames:)`` asks for in one call.
    public var maximumInputFrames: Int {
        (maximumOutputFrames * ratio.downsampling + ratio.upsampling - 1) / ratio.upsampling + bank.halfLength + 2
    }

    /// Input frames `process` needs with the next `outputFrames` output frames (0 … `maximumOutputFrames`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        guard outputFrames > 0 else { return 0 }
        let l = bank.ratio.upsampling, m = bank.ratio.downsampling
        let last = cursor[2] + (cursor[3] + (outputFrames - 1) * m) / l
        let have = cursor[0] + cursor[1]
        return Swift.max(0, last + bank.halfLength + 1 - have)
    }

    /// Appends `inputFrames` frames (exactly ``inputFramesNeeded(forOutputFrames:)``) and
    /// writes `outputFrames` converted frames.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func process(input: UnsafePointer<UnsafePointer<Float>>, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) {
        precondition(outputFrames <= maximumOutputFrames && cursor[1] + inputFrames <= capacity,
                     "PolyphaseResampler.process: more frames than it was built for")
        let k = bank.tapsPerPhase, half = bank.halfLength
        let l = bank.ratio.upsampling, m = bank.ratio.downsampling
        let step = m / l, stepPhase = m % l
        let held = cursor[1]
        appendHistory(input, frames: inputFrames, to: history, stride: capacity, held: held, channelCount: channelCount)
        let start = cursor[0]
        var position = cursor[2], phase = cursor[3]
        for n in 0..<outputFrames {
            let first = position - half + 1 - start  // history index of tap 0
            let coefficients = UnsafePointer(bank.taps + phase * k)
            convolveChannels(coefficients, taps: k, history: history, stride: capacity, offset: first,
                             channelCount: channelCount, output: output, frame: n)
            position += step
            phase += stepPhase
            if phase >= l { phase -= l; position += 1 }
        }
        // Keep the frames the next output still reaches (from position − K/2 + 1 on).
        let total = held + inputFrames
        let keepFrom = Swift.min(total, Swift.max(0, position - half + 1 - start))
        dropHistory(keepFrom, of: total, in: history, stride: capacity, channelCount: channelCount)
        cursor[0] = start + keepFrom
        cursor[1] = total - keepFrom
        cursor[2] = position
        cursor[3] = phase
    }
}

extension PolyphaseResampler: AudioKernel {
    /// A converter by `setup.ratio` at `setup.quality` for `format`'s channels, at most
    /// `format.maximumBlockFrames` output frames a call.
    public init?(_ setup: Resampler.Setup, format: KernelFormat) {
        self.init(ratio: setup.ratio, channelCount: format.channelCount, quality: setup.quality, maximumOutputFrames: format.maximumBlockFrames)
    }

    /// Zeroes NaN and infinity in the input history; true when there was some.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool { NonFiniteScan.zero(history, count: channelCount * capacity) }
}
