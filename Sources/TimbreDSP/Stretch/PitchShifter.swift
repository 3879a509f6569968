import Foundation

/// Real-time pitch shift at unchanged duration, ±24 semitones, with a fixed latency: the
/// ``TimeStretcher`` (streaming options) stretches by the pitch factor P, and a
/// ``VariableResampler`` plays the stretched signal P× faster.
///
/// The two stay locked frame for frame: each stretch of `hop` stretched frames that stands for
/// `hop × rate` input frames (the stretcher's clock, recorded per frame) is played in exactly
/// `hop × rate` output frames (resampler step 1 / rate = the pitch factor in effect then).
/// Output frame u is therefore input frame u − ``latencyFrames`` (within a frame), through
/// glides too, and the latency never drifts.
///
/// A new pitch (``setSemitones(_:)``) is reached by a linear glide (in semitones) lasting
/// ``glideSeconds`` whatever the interval; the
/// stretcher's rate follows block by block and the resampler's step segment by segment, so a
/// change never clicks. `process` allocates nothing and takes no lock.
public struct PitchShifter {
    public let channelCount: Int
    public let sampleRate: Double
    public let maximumBlockFrames: Int
    /// Output frame u is input frame u − latencyFrames.
    public let latencyFrames: Int
    public static let semitoneRange: ClosedRange<Double> = -24...24
    public static let glideSeconds = 0.1

    let storage: Storage

    public init(sampleRate: Double, channelCount: Int, semitones: Double = 0, maximumBlockFrames: Int) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.maximumBlockFrames = maximumBlockFrames
        storage = Storage(sampleRate: sampleRate, channelCount: channelCount, semitones: semitones, maximumBlockFrames: maximumBlockFrames)
        latencyFrames = storage.latency
    }

    public func deallocate() { storage.deallocate() }

    /// The pitch the shifter glides to (clamped to ±24 semitones).
    public func setSemitones(_ semitones: Double) {
        let target = min(Self.semitoneRange.upperBound, max(Self.semitoneRange.lowerBound, semitones))
        guard target != storage.targetSemitones else { return }
        storage.targetSemitones = target
        storage.glidePerFrame = abs(target - storage.semitones) / (Self.glideSeconds * sampleRate)
    }

    /// The pitch now (moving toward the target during a glide).
    public var semitones: Double { storage.semitones }

    /// Stretched frames that were not ready when the output needed them (filled with silence);
    /// zero unless the latency was sized wrong.
    public var underruns: Int { storage.underruns }

    /// Shifts `frameCount` (≤ `maximumBlockFrames`) frames from `input` into `output`.
    public func process(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        storage.process(input: input, output: output, frameCount: frameCount)
    }

    final class Storage {
        let channels: Int
        let stretcher: TimeStretcher
        let resampler: VariableResampler
        let latency: Int
        var semitones: Double
        var targetSemitones: Double
        var glidePerFrame = 0.0
        // Stretched frames waiting for the resampler: absolute stretched index fifoStart ..< fifoStart + fifoCount.
        let fifo: [UnsafeMutablePointer<Float>]
        let fifoCapacity: Int
        var fifoStart = 0, fifoCount = 0
        let fifoPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let fifoConst: UnsafeMutablePointer<UnsafePointer<Float>>
        let subOutput: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        // Output bookkeeping: frames emitted; the resampler started after `latency` frames.
        var emitted = 0
        var segment = -1
        /// Output frames left in the current stretch segment (fractional; ≤ 0: take the next one).
        var segmentLeft = 0.0
        var underruns = 0

        init(sampleRate: Double, channelCount: Int, semitones: Double, maximumBlockFrames: Int) {
            channels = channelCount
            self.semitones = semitones; targetSemitones = semitones
            let p = pow(2, semitones / 12)
            stretcher = TimeStretcher(sampleRate: sampleRate, channelCount: channelCount, rate: 1 / p,
                                      maximumPushFrames: maximumBlockFrames, options: .streaming)
            resampler = VariableResampler(channelCount: channelCount, step: p, maximumStep: 4, maximumOutputFrames: maximumBlockFrames, smoothingFrames: 1)
            // Latency: a stretched frame is final once input reaches its frame's window end and an
            // onset chunk; the resampler reads `reach` stretched frames past its position; at rate r
            // (input per stretched frame, up to 4) those stretched frames cost r× as many input frames.
            let n = stretcher.fftSize, hop = stretcher.hop
            let reach = Int(Double(VariableResampler.zeroCrossings) * 4) + 2
            latency = n / 2 + OnsetDetector.chunkFrames + 4 * (n / 2 + reach) + 2 * hop
            fifoCapacity = 4 * (maximumBlockFrames + latency) + 4 * n
            fifo = (0..<channelCount).map { _ in
                let f = UnsafeMutablePointer<Float>.allocate(capacity: 4 * (maximumBlockFrames + (n / 2 + OnsetDetector.chunkFrames + 4 * (n / 2 + reach) + 2 * hop)) + 4 * n)
                return f
            }
            fifoPointers = .allocate(capacity: channelCount)
            fifoConst = .allocate(capacity: channelCount)
            subOutput = .allocate(capacity: channelCount)
        }

        func deallocate() {
            stretcher.deallocate(); resampler.deallocate()
            fifo.forEach { $0.deallocate() }
            fifoPointers.deallocate(); fifoConst.deallocate(); subOutput.deallocate()
        }

        func process(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
            // Glide (per block; the stretcher applies it from its next frame).
            let glide = glidePerFrame * Double(frameCount)
            semitones += max(-glide, min(glide, targetSemitones - semitones))
            stretcher.setRate(1 / pow(2, semitones / 12))
            stretcher.push(input, frameCount: frameCount)
            // Everything the stretcher has ready goes into the FIFO.
            let ready = stretcher.availableFrames
            if ready > 0 {
                precondition(fifoCount + ready <= fifoCapacity, "PitchShifter FIFO overflow")
                for c in 0..<channels { fifoPointers[c] = fifo[c] + fifoCount }
                stretcher.pull(fifoPointers, frameCount: ready)
                fifoCount += ready
            }
            var done = 0
            // The first `latency` output frames are silence.
            if emitted < latency {
                let n = min(frameCount, latency - emitted)
                for c in 0..<channels { output[c].update(repeating: 0, count: n) }
                done = n; emitted += n
            }
            while done < frameCount {
                if segmentLeft <= 0 {
                    // Stretch segment j (stretched frames j·hop ..< (j+1)·hop) plays in hop × rate_j output frames.
                    guard segment + 1 < stretcher.scheduledFrames else { break }
                    segment += 1
                    let nominal = stretcher.nominalHop(afterFrame: segment)
                    segmentLeft += nominal
                    resampler.jumpStep(to: Double(stretcher.hop) / nominal)
                }
                let n = min(frameCount - done, Int(segmentLeft.rounded(.up)))
                let need = resampler.inputFramesNeeded(forOutputFrames: n)
                guard need <= fifoCount else { break }
                for c in 0..<channels { fifoConst[c] = UnsafePointer(fifo[c]); subOutput[c] = output[c] + done }
                resampler.process(input: fifoConst, inputFrames: need, output: subOutput, outputFrames: n)
                for c in 0..<channels { fifo[c].update(from: fifo[c] + need, count: fifoCount - need) }
                fifoCount -= need; fifoStart += need
                done += n; segmentLeft -= Double(n); emitted += n
            }
            if done < frameCount {
                // Not ready (the latency was too small): silence, counted.
                underruns += frameCount - done
                for c in 0..<channels { (output[c] + done).update(repeating: 0, count: frameCount - done) }
                emitted += frameCount - done
            }
        }
    }
}
