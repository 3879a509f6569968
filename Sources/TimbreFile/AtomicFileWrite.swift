import Foundation

/// A file written beside its target under a hidden temporary name and renamed over it when
/// complete: a reader sees the old file or the whole new one, never a part, and a signal
/// leaves nothing behind (the temporary name is registered with ``TemporaryFiles``). The one
/// such writer for presets, plots, repaired files and sidecars.
///
/// ```
/// dir/.name.ext.timbre-<pid>-<n>.tmp  --write, fsync, close (each checked)-->  rename over dir/name.ext
/// ```
package final class AtomicFileWrite {
    /// The target's path.
    package let path: String
    /// The temporary file's path (for a program that writes it, e.g. a converter).
    package let temporaryPath: String
    /// The open descriptor of the temporary file (-1 once committed or discarded).
    package private(set) var descriptor: Int32
    let slot: Int32
    nonisolated(unsafe) static var counter = 0

    /// Creates the temporary file beside `path` (mode 0644).
    package init(path: String) throws(AudioFileError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        Self.counter += 1
        temporaryPath = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".timbre-\(getpid())-\(Self.counter).tmp"
        slot = TemporaryFiles.register(temporaryPath)
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let why = String(cString: strerror(errno))
            TemporaryFiles.unregister(slot)
            throw AudioFileError(path: path, "cannot create: \(why)")
        }
    }

    deinit { if descriptor >= 0 { discard() } }

    /// Appends `data`, every byte or an error.
    package func write(_ data: Data) throws(AudioFileError) {
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Foundation.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0 { if errno == EINTR { continue }; failure = errno; return }
                done += n
            }
        }
        if failure != 0 { throw AudioFileError(path: path, "write failed: \(String(cString: strerror(failure)))") }
    }

    /// Flushes, closes and renames the file over the target; on any failure the temporary
    /// file is removed and the target left as it was.
    package func commit() throws(AudioFileError) {
        let synced = fsync(descriptor) == 0
        var why = synced ? "" : String(cString: strerror(errno))
        let closed = close(descriptor) == 0
        if !closed && why.isEmpty { why = String(cString: strerror(errno)) }
        descriptor = -1
        defer { TemporaryFiles.unregister(slot) }
        guard synced, closed else { unlink(temporaryPath); throw AudioFileError(path: path, "write failed: \(why)") }
        guard rename(temporaryPath, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw AudioFileError(path: path, "cannot move into place: \(why)")
        }
    }

    /// Closes and removes the temporary file; the target is untouched.
    package func discard() {
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        unlink(temporaryPath)
        TemporaryFiles.unregister(slot)
    }

    /// `data` written to `path` through a temporary file and a rename.
    package static func write(_ data: Data, to path: String) throws(AudioFileError) {
        let file = try AtomicFileWrite(path: path)
        do { try file.write(data) } catch { file.discard(); throw error }
        try file.commit()
    }
}
