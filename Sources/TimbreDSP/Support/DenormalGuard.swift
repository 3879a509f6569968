import CTimbreSupport

/// Flush-to-zero / denormals-are-zero for the calling thread (x86 MXCSR).
///
/// Every thread that renders calls ``enable()`` first: filter state decaying after a loud
/// tail would otherwise become subnormal and cost ~100× per operation.
public enum DenormalGuard {
    /// Sets FTZ and DAZ on this thread and returns the previous control word.
    @discardableResult public static func enable() -> UInt32 { timbre_enable_ftz_daz() }
    /// Restores a control word returned by ``enable()``.
    public static func restore(_ word: UInt32) { timbre_restore_mxcsr(word) }
    /// True when FTZ and DAZ are set on this thread.
    public static var isEnabled: Bool { timbre_ftz_daz_enabled() != 0 }
}
