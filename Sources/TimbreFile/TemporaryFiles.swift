import CTimbreSupport
import Foundation

/// Temporary files that a signal must not leave behind.
///
/// Writers register the hidden file they write beside their target and unregister it once it
/// is renamed or removed. A program that installs the handlers (`timbre` does, first thing)
/// has every registered file removed on SIGINT, SIGTERM and SIGHUP before it exits with
/// 128 + the signal number (130, 143, 129), as a shell reports a process the signal stopped.
/// The table and the handler are C (`temporary_files.c`): a handler may call only
/// async-signal-safe functions.
package enum TemporaryFiles {
    /// Records `path`; returns the slot to pass to ``unregister(_:)`` (−1 when the table is full).
    package static func register(_ path: String) -> Int32 { timbre_temporary_register(path) }

    package static func unregister(_ slot: Int32) { timbre_temporary_unregister(slot) }

    /// SIGINT, SIGTERM and SIGHUP remove every registered file and exit with 128 + signal.
    package static func installSignalHandlers() { timbre_temporary_install_signal_handlers() }
}

extension TemporaryFiles {
    /// A new file in `$TMPDIR` (else /tmp), unlinked at once: nothing is left behind however
    /// the process ends. Returns its descriptor, or the `errno` text.
    package static func anonymous(prefix: String) -> Result<Int32, AudioFileError> {
        let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(dir)/\(prefix)-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return .failure(AudioFileError(path: dir, "cannot create a temporary file: \(String(cString: strerror(errno)))")) }
        unlink(template)
        return .success(fd)
    }
}
