import Locking

/// Keeps an observation alive; invalidating it (or letting it be deallocated) ends it.
///
/// - Once ``invalidate()`` returns, no callback of this observation runs or starts — including
///   deliveries already queued. If a callback of this observation is running on another thread
///   at that moment, `invalidate()` waits for it to return; called from inside the observation's
///   own callback, it returns at once and no further callback starts.
/// - `invalidate()` is idempotent and thread-safe.
/// - While valid, the token keeps the observed live value alive (so
///   `token = repository.getChannel("id").observe { ... }` keeps observing); once invalidated
///   it keeps nothing alive.
public final class NotificationToken: Sendable, Hashable {
    /// True until the first invalidation. Turning it off admits exactly one caller to
    /// ``cancellation``: no lock needed (one allocation fewer per observation).
    private let isActive = AtomicValue<Bool>(true)
    /// The cancellation to run once; `nil` after invalidation. Written at init, then read and
    /// cleared only by the one caller whose exchange turned ``isActive`` off, so it is never
    /// accessed by two threads at once.
    private nonisolated(unsafe) var cancellation: (@Sendable () -> Void)?

    /// Creates a token that runs `cancel` once, when first invalidated or deallocated.
    public init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = cancel
    }

    /// Whether the token still observes.
    public var isValid: Bool {
        isActive.load()
    }

    /// Ends the observation. See the type's documentation for the guarantees.
    public func invalidate() {
        guard isActive.exchange(false) else { return }
        let cancel = cancellation
        cancellation = nil
        cancel?()
    }

    deinit {
        invalidate()
    }

    public static func == (lhs: NotificationToken, rhs: NotificationToken) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
