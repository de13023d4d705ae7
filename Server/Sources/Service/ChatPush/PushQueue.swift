import ChatServer
import NIOConcurrencyHelpers
import NIOCore

/// The bounded queue between the engine and one push provider (``PushLanes`` holds one per
/// provider): the server hands it each message's pushes while it holds its lock (``PushSink``),
/// so taking them is an append under a lock of its own; a full queue drops its oldest pushes to
/// take the new ones (counted: the push that waited longest is the stalest news), so a provider
/// that is down or slow never slows a send and never grows memory past ``capacity`` pushes.
final class PushQueue: PushSink, Sendable {
    /// The most pushes waiting at once.
    let capacity: Int

    private struct State {
        var waiting = CircularBuffer<PushNotification>()
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
        var isFinished = false
    }
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Appends `notifications`, dropping as many of the oldest waiting as they need room for
    /// (and, of more than ``capacity`` at once, all but the newest ``capacity``).
    ///
    /// - Complexity: O(`notifications`).
    func enqueue(_ notifications: [PushNotification]) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            let taken = notifications.suffix(capacity)
            state.dropped += notifications.count - taken.count
            let overflow = state.waiting.count + taken.count - capacity
            if overflow > 0 {
                state.waiting.removeFirst(overflow)
                state.dropped += overflow
            }
            state.waiting.append(contentsOf: taken)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// How many pushes wait.
    var depth: Int { state.withLockedValue { $0.waiting.count } }
    /// How many were dropped because the queue was full (the oldest waiting, when newer came).
    var dropped: Int { state.withLockedValue { $0.dropped } }

    /// The next push, waiting for one; `nil` once ``finish()`` was called (what still waits is
    /// dropped: the node is stopping).
    func next() async -> PushNotification? {
        while true {
            let taken = state.withLockedValue { state -> PushNotification?? in
                if state.isFinished { return .some(nil) }
                if let push = state.waiting.popFirst() { return .some(push) }
                return nil
            }
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> Bool in
                    if !state.waiting.isEmpty || state.isFinished { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Ends ``next()``: it answers `nil` from now on.
    func finish() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
