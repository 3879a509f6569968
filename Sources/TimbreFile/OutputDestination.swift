import Foundation

/// Where a render's bytes go, decided from the path a user gave.
///
/// A regular file (or a name not yet taken) is replaced atomically: the output is written to a
/// hidden temporary file beside it and renamed over it. A symbolic link is followed to its final
/// target, which is replaced the same way, so the link stays a link. Anything else — standard
/// output (`-`, `/dev/stdout`), a FIFO, a character device such as `/dev/null` or a terminal, a
/// socket — is a stream: it is written through, never replaced (the file is encoded into an
/// unlinked temporary file first, because containers rewrite their headers at the end, and then
/// copied to the stream).
public enum OutputDestination: Equatable, Sendable {
    /// Replace `target` atomically (the final target when the path was a link).
    case file(target: String)
    /// Write through to this stream: an open descriptor (standard output) or a path to open.
    case stream(name: String, descriptor: Int32?)

    /// Whether the bytes go to this process's standard output (`-`, `/dev/stdout`): messages
    /// must then go to stderr.
    public var isStandardOutput: Bool { if case .stream(_, STDOUT_FILENO) = self { true } else { false } }

    /// The destination for `path` (`-` is standard output).
    public static func resolve(_ path: String) throws(AudioFileError) -> OutputDestination {
        switch path {
        case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1": return .stream(name: path == "-" ? "standard output" : path, descriptor: STDOUT_FILENO)
        default: break
        }
        var st = stat()
        if stat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: return .file(target: try finalTarget(of: path))
            case S_IFDIR: throw AudioFileError(path: path, "is a directory")
            default: return .stream(name: path, descriptor: nil)
            }
        }
        guard errno == ENOENT else { throw AudioFileError(path: path, "cannot use as output: \(String(cString: strerror(errno)))") }
        // Absent, or a link whose target is absent: create the final target.
        return .file(target: try finalTarget(of: path))
    }

    /// `path` with every symbolic link along the last component followed (at most 40), so a
    /// dangling link's target is created rather than the link replaced.
    static func finalTarget(of path: String) throws(AudioFileError) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, Int(PATH_MAX))
            guard n > 0 else { throw AudioFileError(path: path, "cannot read the link \(current): \(String(cString: strerror(errno)))") }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(link).path
        }
        throw AudioFileError(path: path, "too many levels of symbolic links")
    }

    /// The device and inode of what `path` names now (links followed), nil when it does not exist.
    public static func identity(of path: String) -> FileIdentity? {
        var st = stat()
        guard path != "-", stat(path, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}

/// A file's device and inode: two paths name the same file when these are equal.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
}
