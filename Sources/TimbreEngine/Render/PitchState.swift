import TimbreDSP

/// The running `PitchShifter` of one `pitch` node, owned by the control side and shared by
/// every plan that continues the node (same key, channel count, rate and block size), so
/// `set <id>.semitones` glides from the pitch in effect instead of restarting the shifter and
/// its latency. Freed when the last plan holding it is.
package final class PitchState {
    package let channelCount: Int
    package let sampleRate: Double
    package let maxBlockFrames: Int
    let shifter: PitchShifter
    let kernel: PitchKernel

    init(channelCount: Int, sampleRate: Double, maxBlockFrames: Int, semitones: Double) {
        self.channelCount = channelCount; self.sampleRate = sampleRate; self.maxBlockFrames = maxBlockFrames
        shifter = PitchShifter(sampleRate: sampleRate, channelCount: channelCount, semitones: semitones, maximumBlockFrames: maxBlockFrames)
        kernel = PitchKernel(shifter: shifter, maxBlockFrames: maxBlockFrames)
    }

    deinit { kernel.deallocate() }

    func matches(_ channels: Int, _ rate: Double, _ block: Int) -> Bool {
        channelCount == channels && sampleRate == rate && maxBlockFrames == block
    }

    /// Output frames filled with silence because the shifter's output was not ready (0 unless
    /// its latency was sized wrong).
    package var underruns: Int { shifter.underruns }
}
