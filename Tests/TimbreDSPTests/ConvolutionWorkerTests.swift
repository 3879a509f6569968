import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// A partitioned convolver's large levels on a worker thread (``ConvolutionThreading``):
/// the same bits as on the calling thread for every block size, carried across a kernel
/// swap mid-job, deadlines met when paced like a live host, and late work counted rather
/// than waited for. Also run under ThreadSanitizer (`make tsan`).
@Suite struct ConvolutionWorkerTests {
    static func run(_ kernel: borrowing PartitionedConvolver, _ x: [[Float]], block: Int, from: Int = 0, to: Int? = nil,
                    into buffer: PlanarBuffer, pace: Double? = nil) {
        var start = from
        let end = to ?? x[0].count
        let began = Date()
        while start < end {
            let n = min(block, end - start)
            buffer.withChannelPointers(from: start) { kernel.process($0, frameCount: n) }
            start += n
            if let pace {
                // A live host: this block's output was not needed before its time came.
                let ahead = Double(start - from) / pace - Date().timeIntervalSince(began)
                if ahead > 0 { Thread.sleep(forTimeInterval: ahead) }
            }
        }
    }

    static let response = (0..<2).map { PartitionedConvolverTests.response(100_000, seed: 21 + UInt64($0)) }
    static let filter = ConvolutionFilter(responses: response, layout: PartitionLayout(length: 100_000))
    static let input = [Signals.noise(160_000, amplitude: 0.5, seed: 31), Signals.noise(160_000, amplitude: 0.5, seed: 32)]

    static func reference() -> [[Float]] {
        let buffer = PlanarBuffer(channels: input)
        run(PartitionedConvolver(filter: filter, channelCount: 2), input, block: 64, into: buffer)
        return buffer.channels
    }

    /// Workers waited for (offline in parallel) give exactly the calling thread's output, for
    /// host blocks 1…4096; the levels of 2,048 taps and more ran on the worker.
    @Test func workersGiveTheCallingThreadsBits() {
        let expected = Self.reference()
        for block in [1, 64, 333, 1_024, 4_096] {
            let counters = ConvolutionCounters()
            let kernel = PartitionedConvolver(filter: Self.filter, channelCount: 2, threading: .parallel, counters: counters)
            let buffer = PlanarBuffer(channels: Self.input)
            let frames = block == 1 ? 40_000 : Self.input[0].count
            Self.run(kernel, Self.input, block: block, to: frames, into: buffer)
            #expect(buffer.channels.map { Array($0[0..<frames]) } == expected.map { Array($0[0..<frames]) }, "block \(block)")
            #expect(counters.late == 0)
            // A job goes to the worker when its lead (2,048 − 64 taps and more) holds 4 blocks.
            #expect((counters.workerRuns > 0) == (block <= 1_024), "block \(block): \(counters.workerRuns) worker runs")
        }
    }

    /// A kernel taking over another's state between blocks — while the other's worker may be
    /// in the middle of a job — goes on with exactly the uninterrupted output.
    @Test func aSwapMidJobContinuesExactly() {
        let expected = Self.reference()
        var rng = SeededRandom(seed: 5)
        for _ in 0..<6 {
            let at = 64 * Int(rng.next() % 1_500) + 20_000
            let buffer = PlanarBuffer(channels: Self.input)
            let first = PartitionedConvolver(filter: Self.filter, channelCount: 2, threading: .parallel)
            Self.run(first, Self.input, block: 64, to: at, into: buffer)
            let second = PartitionedConvolver(filter: Self.filter, channelCount: 2, threading: .parallel)
            second.continueState(from: first)
            Self.run(first, Self.input, block: 64, from: at, to: at + 640, into: PlanarBuffer(channels: Self.input))  // the old plan fading out
            Self.run(second, Self.input, block: 64, from: at, into: buffer)
            #expect(buffer.channels == expected, "swap at \(at)")
        }
    }

    /// The state changes owner, not a copy: the kernel it was taken from — still run by the
    /// old plan while the host crossfades the two plans — plays the taker's block (its own
    /// memory is gone), so the plan crossfade hears the same signal on both sides; the taker
    /// goes on exactly.
    @Test func theGiverPlaysTheTakersBlocks() {
        let expected = Self.reference()
        let at = 30_016, block = 64
        let buffer = PlanarBuffer(channels: Self.input)
        let first = PartitionedConvolver(filter: Self.filter, channelCount: 2, maximumBlockFrames: block, threading: .parallel)
        Self.run(first, Self.input, block: block, to: at, into: buffer)
        let second = PartitionedConvolver(filter: Self.filter, channelCount: 2, maximumBlockFrames: block, threading: .parallel)
        second.continueState(from: first)
        var mismatched = 0
        for start in stride(from: at, to: at + 40 * block, by: block) {
            Self.run(second, Self.input, block: block, from: start, to: start + block, into: buffer)
            let old = PlanarBuffer(channels: Self.input.map { Array($0[start..<(start + block)]) })
            old.withChannelPointers(from: 0) { first.process($0, frameCount: block) }
            for c in 0..<2 where old.channels[c] != Array(buffer.channels[c][start..<(start + block)]) { mismatched += 1 }
        }
        #expect(mismatched == 0, "\(mismatched) blocks of the old kernel differ from the new one's")
        Self.run(second, Self.input, block: block, from: at + 40 * block, into: buffer)
        #expect(buffer.channels == expected)
    }

    /// Paced like a live host (256-frame blocks at 48 kHz, never waiting for the workers):
    /// every deadline met, and so the calling thread's bits.
    @Test func pacedLikeALiveHostEveryDeadlineIsMet() {
        let expected = Self.reference()
        let counters = ConvolutionCounters()
        let kernel = PartitionedConvolver(filter: Self.filter, channelCount: 2, threading: .live, counters: counters)
        let buffer = PlanarBuffer(channels: Self.input)
        let frames = 96_000
        Self.run(kernel, Self.input, block: 256, to: frames, into: buffer, pace: 48_000)
        print("paced: \(counters.workerRuns) worker runs, \(counters.late) late")
        #expect(counters.late == 0 && counters.workerRuns > 0)
        #expect(buffer.channels.map { Array($0[0..<frames]) } == expected.map { Array($0[0..<frames]) })
    }

    /// Fed far faster than real time with a 1,048,576-tap response, a live kernel never waits:
    /// its workers fall behind, and the late runs are counted (a waiting kernel counts none).
    @Test func lateWorkIsCountedNotWaitedFor() {
        let h = PartitionedConvolverTests.response(1 << 20, seed: 3)
        let filter = ConvolutionFilter(responses: [h], layout: PartitionLayout(length: h.count))
        let counters = ConvolutionCounters()
        let kernel = PartitionedConvolver(filter: filter, channelCount: 2, threading: .live, counters: counters)
        let x = [Signals.noise(200_000, amplitude: 0.5, seed: 1), Signals.noise(200_000, amplitude: 0.5, seed: 2)]
        let buffer = PlanarBuffer(channels: x)
        Self.run(kernel, x, block: 256, into: buffer)
        print("unpaced: \(counters.workerRuns) worker runs, \(counters.late) late")
        #expect(counters.late > 0)
        #expect(buffer.channels.allSatisfy { $0.allSatisfy(\.isFinite) })
    }
}

/// An impulse response swapped inside a running stream (``PartitionedConvolver``'s
/// `fadingFrom`): the old filter's convolution exactly until every level has the new one's
/// outputs, then a linear crossfade of ``PartitionedConvolver/crossfadeFrames`` to the new
/// filter's convolution, exactly — both as if each had run from the start.
@Suite struct ConvolutionCrossfadeTests {
    static let layout = PartitionLayout(length: 30_000)
    static let old = ConvolutionFilter(responses: [PartitionedConvolverTests.response(30_000, seed: 41), PartitionedConvolverTests.response(29_000, seed: 42)], layout: layout)
    static let new = ConvolutionFilter(responses: [PartitionedConvolverTests.response(28_000, seed: 43).map { -$0 }], layout: layout)
    static let input = [Signals.noise(120_000, amplitude: 0.5, seed: 51), Signals.noise(120_000, amplitude: 0.5, seed: 52)]

    static func alone(_ filter: ConvolutionFilter) -> [[Float]] {
        let buffer = PlanarBuffer(channels: input)
        ConvolutionWorkerTests.run(PartitionedConvolver(filter: filter, channelCount: 2), input, block: 64, into: buffer)
        return buffer.channels
    }

    @Test(arguments: [ConvolutionThreading.callingThread, .parallel])
    func aSwappedResponseCrossfadesExactly(threading: ConvolutionThreading) {
        let a = Self.alone(Self.old), b = Self.alone(Self.new)
        for (at, block) in [(40_000, 64), (40_064 + 37, 1), (61_440, 256), (50_000, 1_000)] {
            let buffer = PlanarBuffer(channels: Self.input)
            let first = PartitionedConvolver(filter: Self.old, channelCount: 2, threading: threading)
            ConvolutionWorkerTests.run(first, Self.input, block: block, to: at, into: buffer)
            let second = PartitionedConvolver(filter: Self.new, channelCount: 2, threading: threading, fadingFrom: Self.old)
            second.continueState(from: first)
            ConvolutionWorkerTests.run(second, Self.input, block: block, from: at, into: buffer)
            let y = buffer.channels
            let fade = at + Self.layout.reach, end = fade + PartitionedConvolver.crossfadeFrames
            for c in 0..<2 {
                let before = y[c][..<fade].elementsEqual(a[c][..<fade]), after = y[c][end...].elementsEqual(b[c][end...])
                #expect(before, "swap at \(at): the old filter's output until \(fade)")
                #expect(after, "swap at \(at): the new filter's output from \(end)")
                let worst = (fade..<end).map { i -> Float in
                    let w = Float(i - fade) / Float(PartitionedConvolver.crossfadeFrames)
                    return abs(y[c][i] - (a[c][i] + w * (b[c][i] - a[c][i])))
                }.max() ?? 0
                #expect(worst < 1e-6, "swap at \(at): the crossfade is off by \(worst)")
            }
        }
    }
}
