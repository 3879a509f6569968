/// A band-limited sample-rate converter for planar Float audio, fixed rational ratio, pull
/// model, real-time safe: the engine a ``ResamplerQuality`` calls for behind one API.
///
/// | quality | engine | cost | lookahead |
/// |---|---|---|---|
/// | `high` | ``SpectralResampler`` (overlap-save FFT blocks, Double) | ≈ 0.3–0.45 ms per stereo second | one block (1–2 k input frames) |
/// | `fast` | ``PolyphaseResampler`` (one dot product per output frame) | ≈ 1/3 of polyphase `high` | half the filter (32 frames at 44.1→48 kHz) |
///
/// `high` falls back to the polyphase engine for ratios whose FFT blocks would be too large;
/// `engine: .polyphase` asks for it outright (the high-quality filter with low latency).
/// The caller asks how many input frames the next `n` output frames need
/// (``inputFramesNeeded(forOutputFrames:)``, at most ``maximumInputFrames``), fetches exactly
/// that many and hands both to `process(input:inputFrames:output:outputFrames:)`, which
/// produces exactly `n` frames. Output frame n is the input at time n·M/L, so output 0 is
/// input 0 and a file converts without delay; a signal of N frames has ⌈N·L/M⌉ frames
/// (``outputFrames(forInputFrames:)``), the tail flushed with zeros the caller supplies. The
/// result does not depend on how the stream is split into calls. Nothing is allocated after
/// `init`; `process` is `@_noLocks`.
///
/// ```swift
/// let resampler = Resampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2, maximumOutputFrames: 1024)!
/// let need = resampler.inputFramesNeeded(forOutputFrames: 1024)
/// // read `need` frames into `input`, then:
/// resampler.process(input: input, inputFrames: need, output: output, outputFrames: 1024)
/// ```
public struct Resampler: ~Copyable {
    /// The two ways of computing the same filter.
    public enum EngineKind: String, CaseIterable, Sendable {
        /// Overlap-save FFT blocks (``SpectralResampler``): cheapest per frame, a block of lookahead.
        case spectral
        /// One dot product per output frame (``PolyphaseResampler``): half the filter of lookahead.
        case polyphase
    }

    @usableFromInline enum Engine: ~Copyable {
        case spectral(SpectralResampler)
        case polyphase(PolyphaseResampler)
    }

    @usableFromInline let engine: Engine
    public let ratio: RationalRatio
    public let channelCount: Int
    public let quality: ResamplerQuality
    public let maximumOutputFrames: Int

    /// A converter between two whole-Hz rates; nil if the pair needs more filter memory than
    /// the engines build (unusual, nearly coprime rates).
    public init?(inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .high,
                 maximumOutputFrames: Int, engine: EngineKind? = nil) {
        self.init(ratio: RationalRatio(inputRate: inputRate, outputRate: outputRate), channelCount: channelCount,
                  quality: quality, maximumOutputFrames: maximumOutputFrames, engine: engine)
    }

    /// A converter producing `ratio.upsampling` output frames per `ratio.downsampling` input
    /// frames, at most `maximumOutputFrames` per `process` call. `engine` nil takes the
    /// quality's own (`high`: spectral, `fast`: polyphase); `.polyphase` with `.high` gives the
    /// high-quality filter with low latency for live paths.
    public init?(ratio: RationalRatio, channelCount: Int, quality: ResamplerQuality = .high, maximumOutputFrames: Int,
                 engine kind: EngineKind? = nil) {
        if (kind ?? (quality == .high ? .spectral : .polyphase)) == .spectral,
           let spectral = SpectralResampler(ratio: ratio, channelCount: channelCount, quality: quality, maximumOutputFrames: maximumOutputFrames) {
            self.engine = .spectral(spectral)
        } else if let polyphase = PolyphaseResampler(ratio: ratio, channelCount: channelCount, quality: quality, maximumOutputFrames: maximumOutputFrames) {
            self.engine = .polyphase(polyphase)
        } else {
            return nil
        }
        self.ratio = ratio
        self.channelCount = channelCount
        self.quality = quality
        self.maximumOutputFrames = maximumOutputFrames
    }

    /// Back to the start of a stream: silence before input frame 0, output 0 at input 0.
    public func reset() {
        switch engine {
        case .spectral(let e): e.reset()
        case .polyphase(let e): e.reset()
        }
    }

    /// The engine in use (`high` falls back to polyphase where FFT blocks would be too large).
    public var engineKind: EngineKind {
        switch engine {
        case .spectral: .spectral
        case .polyphase: .polyphase
        }
    }

    /// Input frames the first output frame needs beyond its own position: the lookahead a
    /// live stream would be delayed by (a file source simply reads ahead).
    public var latencyInputFrames: Int {
        switch engine {
        case .spectral(let e): e.latencyInputFrames
        case .polyphase(let e): e.latencyInputFrames
        }
    }

    /// The most input frames ``inputFramesNeeded(forOutputFrames:)`` asks for in one call:
    /// what a caller's input buffer must hold.
    public var maximumInputFrames: Int {
        switch engine {
        case .spectral(let e): e.maximumInputFrames
        case .polyphase(let e): e.maximumInputFrames
        }
    }

    /// Output frames a signal of `inputFrames` frames converts to: ⌈N·L/M⌉.
    public func outputFrames(forInputFrames n: Int64) -> Int64 { ratio.outputFrames(forInputFrames: n) }

    /// Input frames `process` needs with the next `outputFrames` output frames (0 … `maximumOutputFrames`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        switch engine {
        case .spectral(let e): e.inputFramesNeeded(forOutputFrames: outputFrames)
        case .polyphase(let e): e.inputFramesNeeded(forOutputFrames: outputFrames)
        }
    }

    /// Appends `inputFrames` frames (exactly ``inputFramesNeeded(forOutputFrames:)``) and
    /// writes `outputFrames` converted frames.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func process(input: UnsafePointer<UnsafePointer<Float>>, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) {
        switch engine {
        case .spectral(let e): e.process(input: input, inputFrames: inputFrames, output: output, outputFrames: outputFrames)
        case .polyphase(let e): e.process(input: input, inputFrames: inputFrames, output: output, outputFrames: outputFrames)
        }
    }
}

extension Resampler: AudioKernel {
    /// What a converter needs besides its format: the ratio and the quality.
    public struct Setup: Sendable, Equatable {
        public var ratio: RationalRatio
        public var quality: ResamplerQuality
        public init(ratio: RationalRatio, quality: ResamplerQuality = .high) { self.ratio = ratio; self.quality = quality }
    }

    /// A converter by `setup.ratio` at `setup.quality` (the quality's own engine) for
    /// `format`'s channels, at most `format.maximumBlockFrames` output frames a call.
    public init?(_ setup: Setup, format: KernelFormat) {
        self.init(ratio: setup.ratio, channelCount: format.channelCount, quality: setup.quality, maximumOutputFrames: format.maximumBlockFrames)
    }

    /// Zeroes NaN and infinity in the engine's history; true when there was some.
    @discardableResult
    public func clearNonFinite() -> Bool {
        switch engine {
        case .spectral(let e): e.clearNonFinite()
        case .polyphase(let e): e.clearNonFinite()
        }
    }
}
