/// A crossover's kernel: N input channels become N × bands output channels, band by band
/// (band 0's channels first: with a stereo input, low L, low R, high L, high R).
///
/// Each band is a ``BiquadCascade`` (Double state, one rounding to `Float` per sample) of the
/// ``CrossoverDesign``'s sections. The kernel works in place on `channelCount × bandCount`
/// channels whose first `channelCount` hold the input: the input is copied to every higher
/// band first, then each band is filtered. No latency; the output does not depend on the block
/// size. Non-copyable: `deinit` frees the cascades.
public struct CrossoverFilter: ~Copyable, @unchecked Sendable {
    public let design: CrossoverDesign
    /// Input channels.
    public let channelCount: Int
    public let bandCount: Int
    /// `bandCount` cascades on `channelCount` channels each.
    let bands: UnsafeMutablePointer<BiquadCascade>

    public init(design: CrossoverDesign, sampleRate: Double, channelCount: Int) {
        precondition(channelCount >= 1)
        self.design = design; self.channelCount = channelCount
        bandCount = design.bandCount
        bands = .allocate(capacity: bandCount)
        for b in 0..<bandCount {
            (bands + b).initialize(to: BiquadCascade(sections: design.sections(band: b, sampleRate: sampleRate), channelCount: channelCount))
        }
    }

    deinit {
        bands.deinitialize(count: bandCount)
        bands.deallocate()
    }

    /// Channels written: `channelCount × bandCount`.
    public var outputChannelCount: Int { channelCount * bandCount }

    /// Splits the first ``channelCount`` of `channels` (``outputChannelCount`` of them) into bands.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let n = channelCount, bands = bands
        for b in stride(from: bandCount - 1, to: 0, by: -1) {
            for c in 0..<n {
                let src = channels[c], dst = channels[b * n + c]
                for i in 0..<frameCount { dst[i] = src[i] }
            }
        }
        for b in 0..<bandCount { bands[b].process(channels + b * n, frameCount: frameCount) }
    }

    /// Clears every band's filter memory.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for b in 0..<bandCount { bands[b].reset() }
    }

    /// Clears the bands holding NaN or infinity; true if any did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var any = false
        for b in 0..<bandCount where bands[b].clearNonFinite() { any = true }
        return any
    }

    /// Takes over `previous`'s filter memories when it has the same bands, sections and channels.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing CrossoverFilter) {
        guard previous.bandCount == bandCount, previous.channelCount == channelCount else { return }
        for b in 0..<bandCount { bands[b].continueState(from: previous.bands[b]) }
    }
}
