import Foundation
import TimbreEngine

/// The live file side of the players: one thread that keeps every player's ring filled, so
/// the audio thread never touches a file. Rings hold 2 s (at least 4 blocks); the thread tops
/// them up every 5 ms, so a player is 2 s ahead of what plays, and a read that stalls for
/// less than that is never heard. When it stalls longer the render side plays silence and
/// counts the frames (``PlayerState/underruns``), never stale audio.
///
/// The control thread hands over the players of the plans alive with ``update(_:)`` after
/// every edit; the set is guarded by a lock that only these two non-real-time threads take.
package final class PlayerPrefetcher: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [PlayerState] = []
    private var failures: [String] = []
    private var running = false
    private var thread: Thread?
    /// Test hook: a delay before every chunk read (4096 frames), as a slow disk would add.
    package var readDelay: TimeInterval = 0

    package init() {}

    /// The players to keep filled (the engine's ``LiveEngine/playerStates``).
    package func update(_ states: [PlayerState]) {
        lock.lock(); self.states = states; lock.unlock()
    }

    /// Read errors since the last call (a file deleted or truncated while playing), one line each.
    package func takeFailures() -> [String] {
        lock.lock(); defer { lock.unlock() }
        let f = failures; failures = []
        return f
    }

    package func start() {
        lock.lock(); running = true; lock.unlock()
        let t = Thread { [unowned self] in self.loop() }
        t.name = "timbre-prefetch"
        thread = t
        t.start()
    }

    package func stop() {
        lock.lock(); running = false; lock.unlock()
        while thread?.isFinished == false { usleep(1000) }
    }

    private func loop() {
        while true {
            lock.lock()
            let keepGoing = running, current = states
            lock.unlock()
            if !keepGoing { return }
            // Two chunks per player per round, in turn; sleep only when every ring is full.
            var wrote = 0
            for state in current {
                guard let feeder = state.feeder as? PlayerFeeder else { continue }
                do { wrote += try feeder.fill(maxChunks: 2, chunkDelay: readDelay) } catch {
                    feeder.abandon()
                    lock.lock(); failures.append("\(error)"); lock.unlock()
                }
            }
            // Rings full: 5 ms (a ring holds seconds). No players at all: 50 ms (a preset
            // loaded with players is picked up that soon; its rings start full).
            if wrote == 0 { usleep(current.isEmpty ? 50_000 : 5000) }
        }
    }
}
