import Foundation

/// A ``LoudnessCompensationDesign`` running on planar channels: five sections in one
/// ``BiquadCascade``, and the design's gain table, so a new volume is followed on the audio
/// thread with no design work beyond five cookbook biquads.
///
/// A volume change glides: the listening level moves in equal steps over ``glideSeconds``,
/// one step per sub-block of ``subBlockFrames`` frames counted from the filter's start (so the
/// glide does not depend on the host's block size), the sections recomputed at each step with
/// the cascade's state kept. At rest a block is one call of the cascade.
///
/// Memory: `init` allocates the table and the cascade; `process` and `setVolume` never
/// allocate. One owner (non-copyable); `deinit` frees the table.
public struct LoudnessCompensationFilter: ~Copyable {
    public static let subBlockFrames = 32
    public static let glideSeconds = 0.03

    let cascade: BiquadCascade
    let table: UnsafeMutablePointer<Double>
    let frequencies: (Double, Double, Double, Double, Double)
    let levels: Int
    let referencePhon: Double
    let step: Double
    let sampleRate: Double
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
        table = .allocate(capacity: design.gains.count)
        table.initialize(from: design.gains, count: design.gains.count)
        let f = design.frequencies
        frequencies = (f[0], f[1], f[2], f[3], f[4])
        levels = design.gains.count / n
        referencePhon = design.referencePhon
        step = design.step
        sampleRate = design.sampleRate
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
        let n = LoudnessCompensationDesign.sectionCount
        let (i, t) = LoudnessCompensationDesign.position(volumeDB: volumeDB, referencePhon: referencePhon, step: step, levels: levels)
        for k in 0..<n {
            let a = table[i * n + k], b = table[(i + 1) * n + k]
            let f: Double
            switch k { case 0: f = frequencies.0; case 1: f = frequencies.1; case 2: f = frequencies.2; case 3: f = frequencies.3; default: f = frequencies.4 }
            cascade.setSection(k, to: LoudnessCompensationDesign.section(k, gainDB: a + t * (b - a), frequencyHz: f, sampleRate: sampleRate))
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
