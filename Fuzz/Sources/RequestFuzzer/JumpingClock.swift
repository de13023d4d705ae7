import ChatServer
import Foundation
import Synchronization

/// The system clock, moved forward by the run between batches (by nothing, a second, a day, a
/// year, eleven years): every stored deadline comes due in turn, so the server arms its wake-up
/// for each one — the far ones included — at the reopen that follows, and sleeps towards it
/// with the system clock's own code.
final class JumpingClock: ServerClock {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { SystemClock().now + offset.withLock { $0 } }

    func sleep(until deadline: Date) async throws {
        try await SystemClock().sleep(until: deadline - offset.withLock { $0 })
    }

    /// Moves time forward by `seconds` (never back).
    func jump(by seconds: TimeInterval) {
        offset.withLock { $0 += max(0, seconds) }
    }
}
