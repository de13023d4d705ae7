import ChatServer
import NIOConcurrencyHelpers

/// The bounded queue between the engine and the push providers: the server hands it each
/// message's pushes while it holds its lock (``PushSink``), so taking them is an append under a
/// lock of its own; a full queue drops what does not fit (counted), so a provider that is down
/// or slow never slows a send and never grows memory past ``capacity`` pushes.
final class PushQueue: PushSink, Sendable {
    /// The most pushes waiting at once.
    let capacity: Int

    private struct State {
        var waiting: [PushNotification] = []
        var next = 0
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
        var isFinished = false
    }
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    func enqueue(_ notifications: [PushNotification]) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            let room = max(0, capacity - (state.waiting.count - state.next))
            state.waiting += notifications.prefix(room)
            state.dropped += max(0, notifications.count - room)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// How many pushes wait.
    var depth: Int { state.withLockedValue { $0.waiting.count - $0.next } }
    /// How many were dropped because the queue was full.
    var dropped: Int { state.withLockedValue { $0.dropped } }

    /// The next push, waiting for one; `nil` once ``finish()`` was called (what still waits is
    /// dropped: the node is stopping).
    func next() async -> PushNotification? {
        while true {
            let taken = state.withLockedValue { state -> PushNotification?? in
                if state.isFinished { return .some(nil) }
                if state.next < state.waiting.count {
                    let push = state.waiting[state.next]
                    state.next += 1
                    if state.next > 1_024 && state.next * 2 > state.waiting.count {
                        state.waiting.removeFirst(state.next)
                        state.next = 0
                    }
                    return .some(push)
                }
                return nil
            }
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> Bool in
                    if state.next < state.waiting.count || state.isFinished { return true }
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
