import ChatAPI
import Locking

/// Where the server puts a connection's events for its transport to take: the buffer behind
/// `ChatTransport.events`, with the wake-up of a parked reader separated from the put.
///
/// The server puts events under its lock (so every device gets them in sequence order), but
/// waking a reader that waits is a thread wake-up, a system call that has no reason to hold the
/// lock. ``post(_:)`` only buffers and hands back the ``Wake`` of a parked reader; the engine
/// runs the wakes once it has released its lock (see `EventHub.deferWakes()` and `EventHub.takeWakes()`). Between the put and the
/// wake nothing is lost: the reader finds the event in the buffer whenever it looks.
///
/// A single reader, as `ChatTransport.events` has: ``next()`` returns the oldest buffered
/// event, or suspends until one is posted, ``finish()`` is called (then `nil` once the buffer is
/// empty), or the reading task is cancelled (`nil`, as `AsyncStream` ends when its reader is
/// cancelled).
///
/// - Complexity: ``post(_:)`` and ``next()`` are amortized O(1), one short lock hold each.
final class EventMailbox: Sendable {
    /// What ``post(_:)`` did with an event.
    enum Posting {
        /// Buffered; `remaining` more fit before the limit (`nil`: no limit).
        case enqueued(remaining: Int?)
        /// Not buffered: the buffer is at its limit, or the mailbox is finished.
        case dropped
    }

    /// A parked reader to resume; resume it once, outside the server's lock.
    struct Wake: Sendable {
        fileprivate let continuation: UnsafeContinuation<Void, Never>

        func run() { continuation.resume() }
    }

    private struct State: Sendable {
        /// `buffer[head...]` are the events not yet taken, oldest first; a taken event's slot is
        /// emptied (moved out, not copied).
        var buffer: [ConnectionEvent?] = []
        var head = 0
        /// The reader, while it waits for an event.
        var reader: UnsafeContinuation<Void, Never>?
        var isFinished = false
        /// The reading task was cancelled: the mailbox ends for good.
        var isCancelled = false
        /// The sequence number of the last event envelope buffered (0 before any).
        var lastPostedSequence = 0

        var count: Int { buffer.count - head }

        mutating func takeOldest() -> ConnectionEvent? {
            guard head < buffer.count else { return nil }
            let event = buffer[head].take()
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.count <= 1_024)
                head = 0
            } else if head >= 1_024, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return event
        }
    }

    /// The most events buffered at once (`nil`: no limit); past it, events are dropped.
    let limit: Int?
    /// Lock order: `LockRank.eventMailbox`: posted to under the server's lock, and taken by the
    /// reader's cancellation under whatever lock the canceller holds; holds nothing.
    private let state = Lock(State(), rank: .eventMailbox)

    init(limit: Int?) {
        self.limit = limit
    }

    /// An `AsyncStream` reading this mailbox: the transport's `events`.
    func makeStream() -> AsyncStream<ConnectionEvent> {
        AsyncStream(unfolding: { [self] in await next() })
    }

    /// Buffers `event`; returns what was done with it and the reader to wake, if one waits.
    func post(_ event: ConnectionEvent) -> (posting: Posting, wake: Wake?) {
        state.withLock { state in
            if state.isFinished || state.isCancelled { return (.dropped, nil) }
            if let limit, state.count >= limit { return (.dropped, nil) }
            state.buffer.append(event)
            if case .event(let envelope) = event {
                state.lastPostedSequence = max(state.lastPostedSequence, envelope.sequence)
            }
            let remaining = limit.map { $0 - state.count }
            return (.enqueued(remaining: remaining), state.reader.take().map(Wake.init))
        }
    }

    /// No event is posted after this; the reader gets the buffered ones, then `nil`. Returns
    /// the reader to wake, if one waits.
    func finish() -> Wake? {
        state.withLock { state in
            state.isFinished = true
            return state.reader.take().map(Wake.init)
        }
    }

    /// The sequence number of the last event envelope buffered for the reader (0 before any):
    /// what the reader will have seen once it has taken every buffered event.
    var lastPostedSequence: Int { state.withLock { $0.lastPostedSequence } }

    /// Whether the reader is parked, waiting for an event (for tests).
    var hasParkedReader: Bool { state.withLock { $0.reader != nil } }

    /// The oldest event not yet taken, waiting for one if need be; `nil` once finished and
    /// empty, or when the calling task is cancelled.
    func next() async -> ConnectionEvent? {
        while true {
            enum Look {
                case event(ConnectionEvent)
                case end
                case wait
            }
            let look = state.withLock { state -> Look in
                if state.isCancelled { return .end }
                if let event = state.takeOldest() { return .event(event) }
                return state.isFinished ? .end : .wait
            }
            switch look {
            case .event(let event): return event
            case .end: return nil
            case .wait: await park()
            }
        }
    }

    /// Suspends until an event is posted, the mailbox finishes or the task is cancelled.
    private func park() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.count > 0 || state.isFinished || state.isCancelled { return true }
                    state.reader = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let reader = state.withLock { state in
                state.isCancelled = true
                return state.reader.take()
            }
            reader?.resume()
        }
    }
}
