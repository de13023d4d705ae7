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
/// A single reader, in one of two ways:
/// - a task, as `ChatTransport.events` has: ``next()`` returns the oldest buffered event, or
///   suspends until one is posted, ``finish()`` is called (then `nil` once the buffer is empty),
///   or the reading task is cancelled (`nil`, as `AsyncStream` ends when its reader is
///   cancelled);
/// - or no task at all between bursts of events (``readOnDemand(_:)``, what `WireSession` does
///   for a network connection): a doorbell is rung when an event arrives, the reader takes
///   events with ``take()`` until there are none — which arms the doorbell again — and
///   ``cancel()`` ends the reading. An idle connection then holds no suspended task (about 3 KB
///   each), only the doorbell's closure.
///
/// - Complexity: ``post(_:)``, ``next()`` and ``take()`` are amortized O(1), one short lock hold
///   each.
final class EventMailbox: Sendable {
    /// What ``post(_:)`` did with an event.
    enum Posting {
        /// Buffered; `remaining` more fit before the limit (`nil`: no limit).
        case enqueued(remaining: Int?)
        /// Not buffered: the buffer is at its limit, or the mailbox is finished.
        case dropped
    }

    /// What ``take()`` found.
    enum Take {
        /// The oldest event not yet taken (now taken).
        case event(ConnectionEvent)
        /// No event buffered: the doorbell is armed again, and the next post rings it.
        case empty
        /// Nothing more comes: finished and empty, or cancelled.
        case end
    }

    /// A reader to wake: a parked task to resume, or a doorbell to ring. Run it once, outside
    /// the server's lock.
    struct Wake: Sendable {
        fileprivate enum Reader {
            case parked(UnsafeContinuation<Void, Never>)
            case doorbell(@Sendable () -> Void)
        }
        fileprivate let reader: Reader

        func run() {
            switch reader {
            case .parked(let continuation): continuation.resume()
            case .doorbell(let ring): ring()
            }
        }
    }

    private struct State: Sendable {
        /// `buffer[head...]` are the events not yet taken, oldest first; a taken event's slot is
        /// emptied (moved out, not copied).
        var buffer: [ConnectionEvent?] = []
        var head = 0
        /// The reader, while it waits for an event.
        var reader: UnsafeContinuation<Void, Never>?
        /// The doorbell of a reader on demand (``readOnDemand(_:)``); `nil` for a task reader.
        var doorbell: (@Sendable () -> Void)?
        /// The doorbell rings at the next post: the reader found no event and is not reading.
        var isDoorbellArmed = false
        var isFinished = false
        /// The reading task was cancelled: the mailbox ends for good.
        var isCancelled = false
        /// The sequence number of the last event envelope buffered (0 before any).
        var lastPostedSequence = 0

        var count: Int { buffer.count - head }

        /// The reader to wake for a post or the finish, if it waits: a parked task, or an
        /// armed doorbell (disarmed: it rings once per burst).
        mutating func takeWake() -> Wake? {
            if let reader = reader.take() { return Wake(reader: .parked(reader)) }
            guard isDoorbellArmed, let doorbell else { return nil }
            isDoorbellArmed = false
            return Wake(reader: .doorbell(doorbell))
        }

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
            return (.enqueued(remaining: remaining), state.takeWake())
        }
    }

    /// No event is posted after this; the reader gets the buffered ones, then `nil`. Returns
    /// the reader to wake, if one waits.
    func finish() -> Wake? {
        state.withLock { state in
            state.isFinished = true
            return state.takeWake()
        }
    }

    /// The sequence number of the last event envelope buffered for the reader (0 before any):
    /// what the reader will have seen once it has taken every buffered event.
    var lastPostedSequence: Int { state.withLock { $0.lastPostedSequence } }

    /// Whether the reader is parked, waiting for an event (for tests).
    var hasParkedReader: Bool { state.withLock { $0.reader != nil } }

    /// Reads this mailbox on demand instead of with ``next()``: `ring` is called (on the
    /// poster's thread, as a ``Wake``; it must not block nor take the server's lock) once an
    /// event is posted or the mailbox finishes while the doorbell is armed — armed now, and
    /// again each time ``take()`` answers `.empty`. It rings once per burst: the reader then
    /// takes events until `.empty` or `.end`. Returns the wake to run at once if events are
    /// buffered already.
    /// - Precondition: called once, before any other read.
    func readOnDemand(_ ring: @escaping @Sendable () -> Void) -> Wake? {
        state.withLock { state in
            precondition(state.doorbell == nil && state.reader == nil, "a mailbox has one reader")
            state.doorbell = ring
            state.isDoorbellArmed = !state.isCancelled
            return state.count > 0 || state.isFinished ? state.takeWake() : nil
        }
    }

    /// The oldest event not yet taken, without waiting: `.empty` (the doorbell armed again) when
    /// there is none, `.end` once finished and empty or cancelled. For a reader on demand.
    func take() -> Take {
        state.withLock { state in
            if state.isCancelled { return .end }
            if let event = state.takeOldest() { return .event(event) }
            if state.isFinished { return .end }
            state.isDoorbellArmed = true
            return .empty
        }
    }

    /// The reader on demand stops: the mailbox ends for good (what cancelling a task reader
    /// does), the doorbell is let go and never rings again.
    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            state.isDoorbellArmed = false
            state.doorbell = nil
        }
    }

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
