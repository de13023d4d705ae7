import ChatServer
import Synchronization

/// The sessions open at the gateway, so that a shutdown can close each with 1001.
final class SessionRegistry: Sendable {
    private let state = Mutex<(next: Int, sessions: [Int: WireSession])>((0, [:]))

    /// Adds `session`; returns the key to remove it with.
    func add(_ session: WireSession) -> Int {
        state.withLock { state in
            defer { state.next += 1 }
            state.sessions[state.next] = session
            return state.next
        }
    }

    func remove(_ key: Int) {
        _ = state.withLock { $0.sessions.removeValue(forKey: key) }
    }

    /// Closes every open session with `code`.
    func closeAll(code: Int, reason: String) async {
        let sessions = state.withLock { Array($0.sessions.values) }
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { await session.close(code: code, reason: reason) } }
        }
    }
}
