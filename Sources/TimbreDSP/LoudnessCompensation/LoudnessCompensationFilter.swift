import Foundation

/// A ``LoudnessCompensationDesign`` running on planar channels: five sections in one
/// ``BiquadCascade``, and the design's coefficient table, so a new volume is followed on the
/// audio thread by interpolating between two designed levels, with no design work there.
///
/// A volume change glides: the listening level moves in equal steps over ``glideSeconds``,
/// one step per sub-block of ``subBlockFrames`` frames counted from the filter's start (so the
/// glide does not depend on the host's block size), the sections interpolated anew at each
/// step with the cascade's state kept. At rest a block is one call of the cascade.
///
/// Memory: `init` allocates the table and the cascade; `process` and `setVolume` never
/// allocate. One owner (non-copyable); `deinit` frees the table.
public struct LoudnessCompensationFilter: ~Copyable {
    public static let subBlockFrames = 32
    public static let glideSeconds = 0.03

    let cascade: BiquadCascade
    /// The design's coefficient table (``LoudnessCompensationDesign/coefficients``).
    let table: UnsafeMutablePointer<Double>
    let levels: Int
    let referencePhon: Double
    let step: Double
    let glideSteps: Int
    /// The volume the sections are at, where it is going, and the steps left.
    public private(set) var volumeDB: Double
    var targetDB: Double
    var increment = 0.0
    var stepsLeft = 0
    var framesDone = 0
    let shifted: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    public init(design: LoudnessCompensationDesign, channelCount: Int, volumeDB: Double) {
        let n = LoudnessCompensationDesign.sectionCount
        cascade = BiquadCascade(sections: [BiquadCoefficients](repeating: .identity, count: n), channelCount: channelCount, keepingIdentities: true)
        table = .allocate(capacity: design.coefficients.count)
        table.initialize(from: design.coefficients, count: design.coefficients.count)
        levels = design.coefficients.count / LoudnessCompensationDesign.tableStride
        referencePhon = design.referencePhon
        step = design.step
        glideSteps = max(1, Int((Self.glideSeconds * design.sampleRate / Double(Self.subBlockFrames)).rounded(.up)))
        self.volumeDB = volumeDB; targetDB = volumeDB
        shifted = .allocate(capacity: channelCount)
        place(volumeDB)
    }

    deinit { table.deallocate(); shifted.deallocate() }

    /// Sets the sections for `volumeDB` from the table. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func place(_ volumeDB: Double) {
        for k in 0..<LoudnessCompensationDesign.sectionCount {
            cascade.setSection(k, to: LoudnessCompensationDesign.section(k, volumeDB: volumeDB, table: table, levels: levels, referencePhon: referencePhon, step: step))
        }
    }

    /// Glides to `volumeDB` from the next sub-block on. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func setVolume(_ volumeDB: Double) {
        guard volumeDB != targetDB, !volumeDB.isNaN else { return }
        // An effective level (held within 20 phon and the reference) that does not change needs no glide.
        let lowest = LoudnessCompensationDesign.lowestLevel - referencePhon
        let from = min(0, max(lowest, self.volumeDB)), to = min(0, max(lowest, volumeDB))
        targetDB = volumeDB
        if from == to { self.volumeDB = volumeDB; stepsLeft = 0; return }
        self.volumeDB = from
        increment = (to - from) / Double(glideSteps)
        stepsLeft = glideSteps
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard stepsLeft > 0 else {
            cascade.process(channels, frameCount: frameCount)
            framesDone &+= frameCount
            return
        }
        let sub = Self.subBlockFrames
        var done = 0
        while done < frameCount {
            let phase = framesDone % sub
            if phase == 0, stepsLeft > 0 {
                stepsLeft -= 1
                volumeDB = stepsLeft == 0 ? targetDB : volumeDB + increment
                place(volumeDB)
            }
            let n = min(sub - phase, frameCount - done)
            for c in 0..<cascade.channelCount { shifted[c] = channels[c] + done }
            cascade.process(UnsafePointer(shifted), frameCount: n)
            done += n
            framesDone &+= n
        }
    }

    /// Goes on from `previous`'s filter memory (a new plan of the same graph).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing LoudnessCompensationFilter) {
        cascade.copyState(from: previous.cascade, sections: 0, to: 0, count: LoudnessCompensationDesign.sectionCount)
    }

    public func reset() { cascade.reset() }
    @discardableResult public func clearNonFinite() -> Bool { cascade.clearNonFinite() }
}
