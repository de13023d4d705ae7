import ChatGateway
import Foundation
import NIOConcurrencyHelpers

/// The console sessions this node knows were signed out before they would have ended by
/// themselves (``ConsoleSessions/end(_:)``; on a cluster, also those another node ended, once
/// looked up): each id is kept until its session's `exp`, then forgotten (a session past its
/// `exp` is refused anyway).
final class EndedSessions: Sendable {
    private let ids = NIOLockedValueBox<[String: Date]>([:])

    /// Records `id` as ended until `expiry`, forgetting the ids whose sessions expired by `now`.
    ///
    /// - Complexity: O(ids kept).
    func insert(_ id: String, until expiry: Date, now: Date) {
        ids.withLockedValue { ids in
            ids = ids.filter { $0.value > now }
            ids[id] = expiry
        }
    }

    /// Whether the session `id` was ended (`nil`, a session without an id, never was).
    ///
    /// - Complexity: O(1).
    func contains(_ id: String?) -> Bool {
        guard let id else { return false }
        return ids.withLockedValue { $0[id] != nil }
    }
}
