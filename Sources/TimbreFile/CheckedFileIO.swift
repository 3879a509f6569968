import CSndFile
import Foundation

/// libsndfile's virtual I/O over a file descriptor that remembers the first failed write.
///
/// libsndfile's codecs (FLAC, Ogg, MP3) ignore short writes and `sf_close` does not report
/// them: a render onto a full disk would end with exit 0 and a truncated file. Every byte
/// goes through ``write`` here instead, which retries partial writes and keeps the first
/// `errno`, so the writer can fail with "No space left on device" rather than a codec's
/// "Unspecified internal error" or nothing at all.
final class CheckedFileIO {
    let descriptor: Int32
    /// The first `errno` of a failed write or seek (0: none).
    private(set) var failure: Int32 = 0

    init(descriptor: Int32) { self.descriptor = descriptor }

    var failureText: String? { failure == 0 ? nil : String(cString: strerror(failure)) }

    /// Opens `descriptor` for libsndfile through this object (which must outlive the handle).
    func open(mode: Int32, info: inout SF_INFO) -> OpaquePointer? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                var st = stat()
                return fstat(me.descriptor, &st) == 0 ? sf_count_t(st.st_size) : -1
            },
            seek: { offset, whence, user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                let r = lseek(me.descriptor, off_t(offset), whence)
                if r < 0 && me.failure == 0 { me.failure = errno }
                return sf_count_t(r)
            },
            read: { buffer, count, user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
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
                let (written, error) = CheckedFileIO.writeAll(me.descriptor, buffer!, Int(count))
                if let error, me.failure == 0 { me.failure = error }
                return sf_count_t(written)
            },
            tell: { user in
                let me = Unmanaged<CheckedFileIO>.fromOpaque(user!).takeUnretainedValue()
                return sf_count_t(lseek(me.descriptor, 0, SEEK_CUR))
            })
        return sf_open_virtual(&io, mode, &info, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies the whole file (from its start when `rewind`; else from where it stands: a pipe) to `destination` (a stream), checking every write.
    func copy(to destination: Int32, rewind: Bool = true) -> Int32? {
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
