import CSndFile
import Foundation

/// libsndfile's virtual I/O over a file descriptor that remembers the first failed write.
///
/// libsndfile's codecs (FLAC, Ogg, MP3) ignore short writes and `sf_close` does not report
/// them: a render onto a full disk would end with exit 0 and a truncated file. Every byte
/// goes through ``write`` here instead, which retries partial writes and keeps the first
/// `errno`, so the writer can fail with "No space left on device" rather than a codec's
/// "Unspecified internal error" or nothing at all.
///
/// With a buffer (a render's output, written to a temporary file renamed into place only when
/// whole), consecutive writes are gathered into writes of up to `bufferBytes`: libsndfile hands
/// over 8 KB at a time, and a write(2) each cost more than encoding them (measured: 230 calls
/// for 1.6 MB). Anything else — a seek, a read, the length, ``flush()`` — writes the gathered
/// bytes first. Without one (a recording, whose file must hold every block written if the
/// process is killed) each write goes straight to the descriptor.
final class CheckedFileIO {
    let descriptor: Int32
    /// The first `errno` of a failed write or seek (0: none).
    private(set) var failure: Int32 = 0
    private let buffer: UnsafeMutableRawPointer?
    private let bufferBytes: Int
    /// Bytes gathered, to be written at the descriptor's position.
    private var pending = 0

    init(descriptor: Int32, bufferBytes: Int = 0) {
        self.descriptor = descriptor; self.bufferBytes = bufferBytes
        buffer = bufferBytes > 0 ? .allocate(byteCount: bufferBytes, alignment: 64) : nil
    }

    deinit { buffer?.deallocate() }

    /// Writes the gathered bytes (a failure is kept in ``failure``).
    func flush() {
        guard let buffer, pending > 0 else { return }
        let error = Self.writeAll(descriptor, buffer, pending).error
        if let error, failure == 0 { failure = error }
        pending = 0
    }

    /// libsndfile's write: gathered when there is a buffer, else written at once.
    private func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        guard let buffer else {
            let (written, error) = Self.writeAll(descriptor, bytes, count)
            if let error, failure == 0 { failure = error }
            return written
        }
        if pending + count > bufferBytes { flush() }
        if count >= bufferBytes {
            let (written, error) = Self.writeAll(descriptor, bytes, count)
            if let error, failure == 0 { failure = error }
            return written
        }
        (buffer + pending).copyMemory(from: bytes, byteCount: count)
        pending += count
        return count
    }

    var failureText: String? { failure == 0 ? nil : String(cString: strerror(failure)) }

    /// Opens `descriptor` for libsndfile through this object (which must outlive the handle).
    func open(mode: Int32, info: inout SF_INFO) -> OpaquePointer? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                me.flush()
                var st = stat()
                return fstat(me.descriptor, &st) == 0 ? sf_count_t(st.st_size) : -1
            },
            seek: { offset, whence, user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                me.flush()
                let r = lseek(me.descriptor, off_t(offset), whence)
                if r < 0 && me.failure == 0 { me.failure = errno }
                return sf_count_t(r)
            },
            read: { buffer, count, user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                me.flush()
                var done = 0
                while done < Int(count) {
                    let r = Foundation.read(me.descriptor, buffer! + done, Int(count) - done)
                    if r < 0 && errno == EINTR { continue }
                    if r <= 0 { break }
                    done += r
                }
                return sf_count_t(done)
            },
            write: { buffer, count, user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                return sf_count_t(me.write(buffer!, Int(count)))
            },
            tell: { user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                let position = lseek(me.descriptor, 0, SEEK_CUR)
                return sf_count_t(position < 0 ? position : position + off_t(me.pending))
            })
        return sf_open_virtual(&io, mode, &info, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies the whole file (from its start when `rewind`; else from where it stands: a pipe) to `destination` (a stream), checking every write.
    func copy(to destination: Int32, rewind: Bool = true) -> Int32? {
        flush()
        if failure != 0 { return failure }
        if rewind && lseek(descriptor, 0, SEEK_SET) != 0 { return errno }
        let size = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Foundation.read(descriptor, buffer, size)
            if n < 0 { if errno == EINTR { continue }; return errno }
            if n == 0 { return nil }
            if let e = Self.writeAll(destination, buffer, n).error { return e }
        }
    }

    /// Writes all `count` bytes, retrying partial writes and EINTR; returns how many were
    /// written and the `errno` that stopped it (ENOSPC for a write of 0 bytes).
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> (written: Int, error: Int32?) {
        var done = 0
        while done < count {
            let r = Foundation.write(fd, buffer + done, count - done)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { return (done, r < 0 ? errno : ENOSPC) }
            done += r
        }
        return (done, nil)
    }
}
