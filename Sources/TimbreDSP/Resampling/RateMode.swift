/// What a speed change does to pitch.
public enum RateMode: String, CaseIterable, Sendable {
    /// The pitch is kept (AVAudioPlayer's `rate` with `enableRate`): time-stretching.
    case timestretch
    /// The pitch follows the speed, as a tape or turntable does: resampling.
    case varispeed
}
