import Locking

/// Lets a callback invalidate its own token and fire at most once (for `observeOnce`), even
/// when the first delivery runs before `observe` has returned the token.
final class TokenHolder: Sendable {
    private struct State {
        var token: NotificationToken?
        var fired = false
    }
    /// Lock order: a leaf (the token is invalidated after it is released; see `LockRank`).
    private let state = Lock(State(), rank: .leaf)

    /// Whether this is the first call; later calls get `false`.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.fired = true }
            return !state.fired
        }
    }

    func set(_ token: NotificationToken) {
        let fired = state.withLock { state in
            state.token = token
            return state.fired
        }
        if fired { token.invalidate() }
    }

    func invalidate() {
        state.withLock { $0.token }?.invalidate()
    }
}
