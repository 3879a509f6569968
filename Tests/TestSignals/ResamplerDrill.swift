import Foundation
import TimbreDSP

/// Streams through every fixed-ratio resampler engine, for the real-time proofs
/// (RealtimeSafetyCheck, AllocationCheck): `high` (block FFT), `high` on the polyphase engine
/// and `fast`, each for 44.1→48 and 96→48 kHz stereo, 256 output frames per call. `init` builds
/// and warms up everything (it allocates); ``convertBlock()`` runs one call of each and must
/// neither allocate nor lock.
public final class ResamplerDrill {
    public static let outputFrames = 256
    /// The converters (non-copyable: held in raw memory this drill owns).
    let resamplers: UnsafeMutablePointer<Resampler>
    let resamplerCount: Int
    let input: [UnsafeMutablePointer<Float>]
    let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>>
    let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputCapacity: Int

    public init() {
        let kinds = [(44_100, 48_000), (96_000, 48_000)].flatMap { rates in
            [(ResamplerQuality.high, Resampler.EngineKind?.none), (.high, .polyphase), (.fast, nil)].map { (rates, $0) }
        }
        resamplers = .allocate(capacity: kinds.count)
        resamplerCount = kinds.count
        var largest = 0
        for (k, ((fin, fout), (quality, engine))) in kinds.enumerated() {
            (resamplers + k).initialize(to: Resampler(inputRate: fin, outputRate: fout, channelCount: 2, quality: quality,
                                                      maximumOutputFrames: Self.outputFrames, engine: engine)!)
            largest = max(largest, resamplers[k].maximumInputFrames)
        }
        inputCapacity = largest
        let capacity = inputCapacity
        input = (0..<2).map { c in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            for i in 0..<capacity { p[i] = Float(sin(Double(i) * 0.01 * Double(c + 1))) * 0.5 }
            return p
        }
        inputPointers = .allocate(capacity: 2)
        inputPointers[0] = UnsafePointer(input[0]); inputPointers[1] = UnsafePointer(input[1])
        outputPointers = .allocate(capacity: 2)
        outputPointers[0] = .allocate(capacity: Self.outputFrames); outputPointers[1] = .allocate(capacity: Self.outputFrames)
        for _ in 0..<50 { convertBlock() }  // past every engine's first block
    }

    deinit {
        resamplers.deinitialize(count: resamplerCount); resamplers.deallocate()
        input.forEach { $0.deallocate() }
        outputPointers[0].deallocate(); outputPointers[1].deallocate()
        inputPointers.deallocate(); outputPointers.deallocate()
    }

    /// One call of every resampler: 256 output frames from the input it asks for.
    public func convertBlock() {
        for k in 0..<resamplerCount {
            let need = resamplers[k].inputFramesNeeded(forOutputFrames: Self.outputFrames)
            resamplers[k].process(input: inputPointers, inputFrames: need, output: outputPointers, outputFrames: Self.outputFrames)
        }
    }

    /// Output frames one ``convertBlock()`` writes in all.
    public var framesPerBlock: Int { resamplerCount * Self.outputFrames }
}
