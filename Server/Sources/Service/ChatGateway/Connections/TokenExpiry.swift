import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// The expiry of one connection's token (wire protocol: close 4001): calls `expired` once the
/// token's `expiresAt` (its `exp` plus the leeway) has passed, unless cancelled first.
///
/// Watched by a task scheduled on the channel's event loop — no Swift task of its own per
/// connection, which an idle connection would hold for its whole life. A day at a time: a
/// token's expiry may lie further ahead than a `TimeAmount` holds (NaN expires at once).
///
/// - Threading: thread-safe; `expired` runs on the event loop (or in `init`, for a token
///   already expired).
final class TokenExpiry: Sendable {
    /// The task scheduled, and whether ``cancel()`` was called.
    private let state = NIOLockedValueBox<(scheduled: Scheduled<Void>?, isCancelled: Bool)>((nil, false))

    /// Watches `expiresAt` on `eventLoop`.
    init(_ expiresAt: Date, on eventLoop: any EventLoop, expired: @escaping @Sendable () -> Void) {
        watch(expiresAt, on: eventLoop, expired: expired)
    }

    /// Calls `expired` no more (what is under way finishes).
    func cancel() {
        state.withLockedValue { state -> Scheduled<Void>? in
            state.isCancelled = true
            return state.scheduled.take()
        }?.cancel()
    }

    private func watch(_ expiresAt: Date, on eventLoop: any EventLoop, expired: @escaping @Sendable () -> Void) {
        guard !state.withLockedValue({ $0.isCancelled }) else { return }
        let remaining = expiresAt.timeIntervalSinceNow
        guard remaining > 0 else { return expired() }
        let delay = TimeAmount.nanoseconds(Int64(min(remaining, 86_400) * 1e9))
        let scheduled = eventLoop.scheduleTask(in: delay) { [self] in watch(expiresAt, on: eventLoop, expired: expired)
        }
        let keep = state.withLockedValue { state -> Bool in
            guard !state.isCancelled else { return false }
            state.scheduled = scheduled
            return true
        }
        if !keep { scheduled.cancel() }
    }
}
