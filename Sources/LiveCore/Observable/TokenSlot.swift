import Locking

/// Holds the token of an observation model so that its nonisolated `deinit` can invalidate it.
final class TokenSlot: Sendable {
    private let token = Lock<NotificationToken?>(nil)

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
