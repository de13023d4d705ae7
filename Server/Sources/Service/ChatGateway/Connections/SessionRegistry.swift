import ChatServer
import NIOConcurrencyHelpers

/// The sessions open at the gateway, so that a shutdown can close each with 1001 — those that
/// arrive while it does included.
final class SessionRegistry: Sendable {
    private let state = NIOLockedValueBox<(next: Int, sessions: [Int: WireSession], closing: Bool)>((0, [:], false))

    /// Adds `session`; returns the key to remove it with, or `nil` once ``closeAll(code:reason:)``
    /// has begun (the caller closes that session itself: the server is going away).
    func add(_ session: WireSession) -> Int? {
        state.withLockedValue { state in
            guard !state.closing else { return nil }
            defer { state.next += 1 }
            state.sessions[state.next] = session
            return state.next
        }
    }

    func remove(_ key: Int) {
        _ = state.withLockedValue { $0.sessions.removeValue(forKey: key) }
    }

    /// Closes every open session with `code`; sessions added from now on are refused.
    func closeAll(code: Int, reason: String) async {
        let sessions = state.withLockedValue { state in
            state.closing = true
            return Array(state.sessions.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { await session.close(code: code, reason: reason) } }
        }
    }
}
