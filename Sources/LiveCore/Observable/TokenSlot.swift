import Locking

/// Holds the token of an observation model so that its nonisolated `deinit` can invalidate it.
final class TokenSlot: Sendable {
    /// Lock order: a leaf (the token is invalidated after it is released; see `LockRank`).
    private let token = Lock<NotificationToken?>(nil, rank: .leaf)

    func set(_ newToken: NotificationToken) {
        token.withLock { $0 = newToken }
    }

    func invalidate() {
        token.withLock { token in
            defer { token = nil }
            return token
        }?.invalidate()
    }
}
