import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// Zero-latency partitioned convolution against a direct convolution in Double (the
/// independent reference, written here), through the kernel's own `process`.
@Suite struct PartitionedConvolverTests {
    /// y[t] = Σ_m h[m]·x[t − m], in Double.
    static func direct(_ x: [Float], _ h: [Float]) -> [Double] { DirectConvolution.direct(x, h) }

    /// A decaying noise response (a room's shape): `length` taps.
    static func response(_ length: Int, seed: UInt64) -> [Float] {
        let noise = Signals.noise(length, amplitude: 1, seed: seed)
        return (0..<length).map { noise[$0] * Float(exp(-4 * Double($0) / Double(length))) }
    }

    static func run(_ kernel: borrowing PartitionedConvolver, _ x: [[Float]], block: Int) -> [[Float]] {
        let buffer = PlanarBuffer(channels: x)
        var start = 0
        while start < x[0].count {
            let n = min(block, x[0].count - start)
            buffer.withChannelPointers(from: start) { kernel.process($0, frameCount: n) }
            start += n
        }
        return buffer.channels
    }

    /// Every tap is covered once: the head, then levels of doubling sizes, each starting no
    /// earlier than its size (the zero-latency condition).
    @Test(arguments: [1, 15, 16, 17, 64, 200, 1_000, 48_000, 480_000])
    func layoutCoversEveryTap(length: Int) {
        for (head, largest) in [(16, 16), (16, 256), (64, 8_192), (128, 65_536)] {
            let layout = PartitionLayout(length: length, headTaps: head, maximumPartition: largest)
            var next = layout.headTaps
            for level in layout.levels {
                #expect(level.start == next && level.start >= level.size && level.size <= largest && level.count >= 1)
                next += level.count * level.size
            }
            #expect(next >= length && (layout.levels.last.map { next - length < $0.size } ?? (length <= head)), "\(length) taps, head \(head), largest \(largest)")
        }
    }

    /// Against Double direct convolution: error under −120 dB of the reference's peak, from the
    /// first sample (no latency), for responses shorter than the head up to several levels,
    /// one response per channel.
    @Test(arguments: [(1, 16, 16), (40, 16, 64), (64, 64, 64), (65, 64, 64), (1_000, 16, 128), (5_000, 64, 1_024), (20_000, 64, 4_096)])
    func matchesDirectConvolution(length: Int, head: Int, largest: Int) throws {
        let layout = PartitionLayout(length: length, headTaps: head, maximumPartition: largest)
        let responses = [Self.response(length, seed: 7), Self.response(length, seed: 8)]
        let filter = ConvolutionFilter(responses: responses, layout: layout)
        let kernel = PartitionedConvolver(filter: filter, channelCount: 2)
        let x = [Signals.noise(24_000, amplitude: 0.5, seed: 1), Signals.noise(24_000, amplitude: 0.5, seed: 2)]
        let y = Self.run(kernel, x, block: 100)
        for c in 0..<2 {
            let reference = Self.direct(x[c], responses[c])
            let peak = reference.map(abs).max() ?? 1
            let error = zip(y[c], reference).map { abs(Double($0) - $1) }.max() ?? 0
            let db = 20 * log10(max(error, 1e-30) / peak)
            print(String(format: "convolution %6d taps (head %d, largest %d), channel %d: error %.1f dB of peak", length, head, largest, c, db))
            #expect(db < -120, "\(length) taps: \(db) dB")
        }
    }

    /// Long responses, up to 1,048,576 taps (the range), with the default layout (a
    /// 64-tap head, partitions up to 8,192): the input is 48 impulses of random sign and size
    /// at random places over more than the response's length, so the Double reference
    /// y[t] = Σ_k a_k·h[t − p_k] is exact and cheap, and every level's every partition is used.
    @Test(arguments: [65_536, 262_144, 1_048_576])
    func longResponsesMatchAnExactReference(length: Int) {
        let h = Self.response(length, seed: 11)
        let frames = length + length / 4
        var rng = SeededRandom(seed: UInt64(length))
        let impulses = (0..<48).map { _ in (at: Int(rng.next() % UInt64(frames)), amplitude: Float(Double(rng.next() >> 11) / Double(1 << 53) * 2 - 1)) }
        var x = [Float](repeating: 0, count: frames)
        for i in impulses { x[i.at] += i.amplitude }
        var reference = [Double](repeating: 0, count: frames)
        for (t, a) in x.enumerated() where a != 0 {
            for m in 0..<min(length, frames - t) { reference[t + m] += Double(a) * Double(h[m]) }
        }
        let kernel = PartitionedConvolver(filter: ConvolutionFilter(responses: [h], layout: PartitionLayout(length: length)), channelCount: 1)
        let y = Self.run(kernel, [x], block: 512)[0]
        let peak = reference.map(abs).max() ?? 1
        let error = zip(y, reference).map { abs(Double($0) - $1) }.max() ?? 0
        let db = 20 * log10(max(error, 1e-30) / peak)
        print(String(format: "convolution %7d taps (head 64, largest 8192), 48 impulses over %d frames: error %.1f dB of peak", length, frames, db))
        #expect(db < -120)
    }

    /// Silence before the sound does not move the grid: the output of any lead-in of silence
    /// then x is that lead-in then the output of x alone, bit for bit — and so for silence
    /// long enough to clear the state between two sounds (a live stream's cycles before the
    /// signal, a file's lead-in: live and offline agree exactly).
    @Test func leadingSilenceDoesNotMoveTheGrid() {
        let layout = PartitionLayout(length: 3_000, headTaps: 32, maximumPartition: 512)
        let filter = ConvolutionFilter(responses: [Self.response(3_000, seed: 3)], layout: layout)
        let x = [Signals.noise(9_000, amplitude: 0.5, seed: 4), Signals.noise(9_000, amplitude: 0.5, seed: 5)]
        let alone = Self.run(PartitionedConvolver(filter: filter, channelCount: 2), x, block: 100)
        for lead in [1, 777, 20_000] {
            let silence = [Float](repeating: 0, count: lead)
            let y = Self.run(PartitionedConvolver(filter: filter, channelCount: 2), x.map { silence + $0 }, block: 256)
            #expect(y.allSatisfy { Array($0[0..<lead]).allSatisfy { $0 == 0 } } && y.map { Array($0[lead...]) } == alone, "lead-in \(lead)")
        }
        // Sound, silence longer than the state holds, the same sound: the same output twice.
        let gap = [Float](repeating: 0, count: 3_000 + 2 * 512 + 32 + 5)
        let twice = Self.run(PartitionedConvolver(filter: filter, channelCount: 2), x.map { $0 + gap + $0 }, block: 333)
        #expect(twice.map { Array($0[(9_000 + gap.count)...]) } == twice.map { Array($0[0..<9_000]) })
    }

    /// The same output, bit for bit, whatever the host's block size.
    @Test func outputDoesNotDependOnBlockSize() {
        let layout = PartitionLayout(length: 3_000, headTaps: 32, maximumPartition: 512)
        let filter = ConvolutionFilter(responses: [Self.response(3_000, seed: 3)], layout: layout)
        let x = [Signals.noise(9_000, amplitude: 0.5, seed: 4), Signals.noise(9_000, amplitude: 0.5, seed: 5)]
        var outputs: [[[Float]]] = []
        for block in [1, 7, 32, 333, 512, 4_096] {
            let kernel = PartitionedConvolver(filter: filter, channelCount: 2)
            outputs.append(Self.run(kernel, x, block: block))
        }
        let same = outputs.dropFirst().allSatisfy { $0 == outputs[0] }
        #expect(same)
    }

    /// An impulse comes out as the response itself, from sample 0: no added latency.
    @Test func impulseGivesTheResponseWithNoDelay() {
        let h = Self.response(2_500, seed: 9)
        let filter = ConvolutionFilter(responses: [h], layout: PartitionLayout(length: h.count, headTaps: 64, maximumPartition: 1_024))
        let kernel = PartitionedConvolver(filter: filter, channelCount: 1)
        var x = [Float](repeating: 0, count: 4_000); x[0] = 1
        let y = Self.run(kernel, [x], block: 256)[0]
        let error = (0..<4_000).map { abs(Double(y[$0]) - ($0 < h.count ? Double(h[$0]) : 0)) }.max() ?? 1
        #expect(error < 1e-6, "\(error)")
    }
}
