import Foundation
import TimbreEngine

/// A recording: the audio thread fills a `RecordingTap` (a lock-free ring of at least 4 s),
/// a disk thread of this object empties it into a `TakeFile` — AVAudioRecorder's record,
/// pause, stop, `deleteRecording` (``discard()``) and `record(forDuration:)`, with
/// jack_capture's pre-roll and overrun handling.
///
/// Every command is placed on the stream's timeline: it takes effect at the tap's stream
/// position when it was given (`RecordingTap.streamPosition`), so the disk thread, which
/// runs behind the audio thread, applies it at exactly that frame.
///
/// - Pre-roll: from ``arm()`` on, the disk thread keeps the last `preRollSeconds` of the stream
///   in memory; ``record()`` writes them first.
/// - Pause and resume join the parts with a fade of ``Options/fadeSeconds`` (5 ms): out over
///   the frames after the pause, in over the first after the resume.
/// - `durationFrames`: the take (after the pre-roll) stops at exactly that many frames.
/// - Overruns: frames the ring had no room for are written as silence of the same length at
///   their place, and listed (file frame, frames) in the sidecar and ``Status``.
/// - Markers and JACK xruns (``xrunCount``, polled) become cue points in WAV and RF64 files and
///   entries of the JSON sidecar (`<take>.json`), rewritten atomically every second.
/// - Once a second the header is brought up to date and the data flushed (`fdatasync`): a
///   crash loses at most the last second or two (see `TakeFile`).
/// - A failed write (a full disk, a file made unwritable) stops the take: the file is closed
///   with its header set to every whole frame on disk, ``Status/error`` says why, and the host
///   goes on running.
public final class TakeRecorder: @unchecked Sendable {
    public struct Options: Sendable {
        public var path: String
        public var format: SoundFileFormat
        public var encoding: SampleEncoding
        public var sampleRate: Int
        public var channelCount: Int
        /// What is recorded, for the sidecar ("master", "inputs", a channel's id).
        public var source: String = "master"
        /// The ring's length; at least 4 s.
        public var ringSeconds: Double = 4
        public var preRollSeconds: Double = 0
        /// Frames after which the take stops by itself (pre-roll not counted).
        public var durationFrames: Int?
        public var fadeSeconds: Double = 0.005
        public init(path: String, format: SoundFileFormat, encoding: SampleEncoding, sampleRate: Int, channelCount: Int) {
            self.path = path; self.format = format; self.encoding = encoding; self.sampleRate = sampleRate; self.channelCount = channelCount
        }
    }

    public enum State: String, Sendable { case armed, recording, paused, stopped, failed, discarded }

    /// What the take has done so far (a snapshot the disk thread publishes).
    public struct Status: Sendable {
        public var state: State = .armed
        /// Frames in the file (pre-roll and overrun silence included).
        public var frames: Int64 = 0
        public var fileBytes: Int64 = 0
        public var ringFill: Double = 0
        public var overruns: Int = 0
        public var droppedFrames: Int = 0
        public var xruns: Int = 0
        public var markers: Int = 0
        public var error: String?
        public var seconds: Double = 0
    }

    public let options: Options
    package let tap: RecordingTap
    /// Polled by the disk thread; each increase is an xrun marker.
    public var xrunCount: (@Sendable () -> Int)?

    enum Event { case start, pause, resume, stop, marker(String), xrun }
    private let lock = NSLock()
    private var pending: [(position: Int, event: Event)] = []
    private var discardRequested = false
    private var snapshot = Status()
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private var file: TakeFile?
    private var startDate: Date?

    /// Creates the file (never over an existing one) and the ring. Nothing is captured before
    /// ``arm()`` or ``record()``.
    public init(_ options: Options) throws(AudioFileError) {
        self.options = options
        let ringFrames = Int(max(4, options.ringSeconds) * Double(options.sampleRate))
        file = try TakeFile(path: options.path, format: options.format, encoding: options.encoding,
                            sampleRate: options.sampleRate, channelCount: options.channelCount, maximumFrames: 8192)
        tap = RecordingTap(channelCount: options.channelCount, frames: ringFrames)
    }

    deinit { tap.deallocate() }

    /// The sidecar's path: the take's with `.json` added.
    public var sidecarPath: String { options.path + ".json" }

    /// Starts capturing and the disk thread (the pre-roll fills from here).
    public func arm() {
        guard thread == nil else { return }
        tap.setEnabled(true)
        let t = Thread { [self] in diskLoop(); done.signal() }
        t.name = "timbre-record"
        thread = t
        t.start()
    }

    /// Starts the take now (arming first if needed).
    public func record() { arm(); post(.start) }
    public func pause() { post(.pause) }
    public func resume() { post(.resume) }
    public func marker(_ label: String) { post(.marker(label)) }
    /// Finishes the take at the current frame; returns when the file is closed.
    @discardableResult
    public func stop() -> Status {
        post(.stop)
        if thread != nil { done.wait(); thread = nil; done.signal() } else { finishWithoutThread() }
        return status
    }

    /// Stops and deletes the file and its sidecar.
    public func discard() {
        lock.lock(); discardRequested = true; lock.unlock()
        if thread != nil { done.wait(); thread = nil; done.signal() } else { file?.delete(); file = nil }
    }

    public var status: Status {
        lock.lock(); defer { lock.unlock() }
        var s = snapshot
        s.ringFill = tap.fill; s.overruns = tap.overruns; s.droppedFrames = tap.droppedFrames
        return s
    }

    private func post(_ e: Event) {
        let position = tap.streamPosition
        lock.lock(); pending.append((position, e)); lock.unlock()
    }

    private func finishWithoutThread() {
        if let f = file { _ = f.finish(); file = nil }
        lock.lock(); snapshot.state = .stopped; lock.unlock()
    }

    // MARK: The disk thread

    private func diskLoop() {
        let channels = options.channelCount, chunk = 8192
        let scratch = FrameBlock(channels: channels, frames: chunk)
        let preRollFrames = Int(options.preRollSeconds * Double(options.sampleRate))
        let preRoll = FrameBlock(channels: channels, frames: max(1, preRollFrames))
        var preFill = 0, preAt = 0
        let fadeFrames = max(1, Int(options.fadeSeconds * Double(options.sampleRate)))
        var position = 0, gapLeft = 0
        var state = State.armed
        var gain = 1.0, gainTarget = 1.0
        var takeFrames = 0
        var events: [(position: Int, event: Event)] = []
        var markers: [(frame: Int64, label: String)] = []
        var xruns: [Int64] = [], overruns: [(frame: Int64, frames: Int)] = []
        var lastXruns = xrunCount?() ?? 0
        var lastHeader = Date(), lastProgress = Date()
        var failure: String?
        let file = self.file!

        func publish() {
            lock.lock()
            snapshot.state = state
            snapshot.frames = file.frames
            snapshot.seconds = Double(file.frames) / Double(options.sampleRate)
            snapshot.fileBytes = Int64((try? FileManager.default.attributesOfItem(atPath: options.path)[.size] as? Int) ?? 0)
            snapshot.xruns = xruns.count
            snapshot.markers = markers.count
            snapshot.error = failure
            lock.unlock()
        }

        func writeSidecar() {
            var o: [String: Any] = [
                "path": options.path, "format": options.format.rawValue, "encoding": options.encoding.rawValue,
                "sampleRate": options.sampleRate, "channels": channels, "source": options.source, "state": state.rawValue,
                "frames": file.frames, "preRollFrames": min(preFill, preRollFrames), "fadeFrames": fadeFrames,
                "markers": markers.map { ["frame": $0.frame, "label": $0.label] as [String: Any] },
                "xruns": xruns.map { ["frame": $0] },
                "overruns": overruns.map { ["frame": $0.frame, "frames": $0.frames] as [String: Any] },
            ]
            if let d = startDate { o["startTime"] = ISO8601DateFormatter().string(from: d) }
            if let failure { o["error"] = failure }
            guard let data = try? JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys]) else { return }
            try? AtomicFileWrite.write(data, to: sidecarPath)
        }

        /// `count` frames at stream `position` (silence when `silent`), through the state machine.
        func deliver(_ source: FrameBlock, count: Int, silent: Bool) {
            var offset = 0
            while offset < count {
                var n = count - offset
                switch state {
                case .armed:
                    // Into the pre-roll ring.
                    guard preRollFrames > 0 else { offset = count; continue }
                    for i in 0..<n {
                        for c in 0..<channels { preRoll.channels[c][preAt] = silent ? 0 : source.channels[c][offset + i] }
                        preAt = (preAt + 1) % preRollFrames
                    }
                    preFill = min(preRollFrames, preFill + n)
                    offset += n
                case .recording, .paused:
                    if let d = options.durationFrames { n = min(n, d - takeFrames) }
                    let writing = gainTarget > 0 || gain > 0
                    if writing && failure == nil {
                        for c in 0..<channels {
                            let dst = scratch.channels[c]
                            if silent { for i in 0..<n { dst[i] = 0 } } else if source !== scratch || offset != 0 {
                                let src = source.channels[c] + offset
                                for i in 0..<n { dst[i] = src[i] }
                            }
                        }
                        if gain != gainTarget || gain != 1 {
                            let step = 1 / Double(fadeFrames)
                            var g = gain
                            for i in 0..<n {
                                g = gainTarget > g ? min(gainTarget, g + step) : max(gainTarget, g - step)
                                for c in 0..<channels { scratch.channels[c][i] *= Float(g) }
                            }
                            gain = g
                        }
                        do { try file.write(scratch.channels, count: n) } catch {
                            failure = error.description
                            state = .failed
                        }
                        takeFrames += n
                    }
                    offset += n
                    if let d = options.durationFrames, takeFrames >= d { state = .stopped; offset = count }
                default:
                    offset = count
                }
            }
        }

        func apply(_ event: Event) {
            switch event {
            case .start where state == .armed:
                startDate = Date()
                // The pre-roll, oldest first.
                if preFill > 0 {
                    let first = (preAt - preFill + preRollFrames) % preRollFrames
                    var done = 0
                    while done < preFill && failure == nil {
                        let n = min(chunk, preFill - done)
                        for c in 0..<channels { for i in 0..<n { scratch.channels[c][i] = preRoll.channels[c][(first + done + i) % preRollFrames] } }
                        do { try file.write(scratch.channels, count: n) } catch { failure = error.description; state = .failed }
                        done += n
                    }
                }
                if state != .failed { state = .recording }
                gain = 1; gainTarget = 1
            case .pause where state == .recording:
                state = .paused; gainTarget = 0
            case .resume where state == .paused:
                state = .recording; gainTarget = 1
            case .stop:
                if state != .failed { state = .stopped }
            case .marker(let label):
                markers.append((file.frames, label))
            case .xrun:
                xruns.append(file.frames)
            default:
                break
            }
        }

        while true {
            lock.lock()
            let discard = discardRequested
            events.append(contentsOf: pending); pending.removeAll()
            lock.unlock()
            if discard {
                tap.setEnabled(false)
                file.delete(); self.file = nil
                unlink(sidecarPath)
                state = .discarded; publish()
                return
            }
            if let count = xrunCount?(), count != lastXruns {
                for _ in lastXruns..<count { events.append((tap.streamPosition, .xrun)) }
                lastXruns = count
            }
            events.sort { $0.position < $1.position }
            var progressed = false
            // Drain the ring up to the next event, apply events at their frame.
            drain: while state != .stopped && state != .failed {
                if let e = events.first, e.position <= position {
                    apply(e.event); events.removeFirst(); continue
                }
                var limit = chunk
                if let e = events.first { limit = min(limit, e.position - position) }
                if gapLeft > 0 {
                    let n = min(gapLeft, limit)
                    deliver(scratch, count: n, silent: true)
                    gapLeft -= n; position += n; progressed = true
                    continue
                }
                switch tap.next(at: position, limit: limit) {
                case .frames(let n):
                    tap.copy(into: scratch.channels, frames: n)
                    tap.consume(n)
                    deliver(scratch, count: n, silent: false)
                    position += n; progressed = true
                case .gap(let n):
                    if state == .recording || state == .paused { overruns.append((file.frames, n)) }
                    gapLeft = n
                case .nothing:
                    // A stop past the last frame the audio thread will ever send (the JACK
                    // server gone, an overrun never closed): silence up to it.
                    if let e = events.first, Date().timeIntervalSince(lastProgress) > 0.5, tap.framesWaiting == 0 {
                        gapLeft = e.position - position
                        if gapLeft <= 0 { gapLeft = 0; apply(e.event); events.removeFirst() }
                        continue drain
                    }
                    break drain
                }
            }
            if progressed { lastProgress = Date() }
            if state == .stopped || state == .failed {
                tap.setEnabled(false)
                let cues = markers.map { (frame: $0.frame, label: $0.label) } + xruns.map { (frame: $0, label: "xrun") }
                if let problem = file.finish(cues: cues.sorted { $0.frame < $1.frame }), failure == nil { failure = problem; state = .failed }
                self.file = nil
                writeSidecar(); publish()
                return
            }
            if Date().timeIntervalSince(lastHeader) >= 1 {
                file.updateHeader()
                writeSidecar()
                lastHeader = Date()
            }
            publish()
            usleep(10_000)
        }
    }
}

/// Planar scratch frames for the disk thread.
final class FrameBlock {
    let channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let count: Int
    init(channels n: Int, frames: Int) {
        count = n
        channels = .allocate(capacity: n)
        for c in 0..<n { channels[c] = .allocate(capacity: frames); channels[c].initialize(repeating: 0, count: frames) }
    }
    deinit { for c in 0..<count { channels[c].deallocate() }; channels.deallocate() }
}
