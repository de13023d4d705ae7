import Synchronization

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
    /// The cancellation to run once; `nil` after invalidation.
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    /// Creates a token that runs `cancel` once, when first invalidated or deallocated.
    public init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    /// Whether the token still observes.
    public var isValid: Bool {
        cancellation.withLock { $0 != nil }
    }

    /// Ends the observation. See the type's documentation for the guarantees.
    public func invalidate() {
        let cancel = cancellation.withLock { cancel in
            defer { cancel = nil }
            return cancel
        }
        cancel?()
    }

    deinit {
        invalidate()
    }

    public static func == (lhs: NotificationToken, rhs: NotificationToken) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
