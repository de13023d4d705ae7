import ChatAPI
import Foundation
import LiveCore
import Locking

/// The device's outbox: the messages created with `MessageRepository.createMessage` that the
/// server has not stored yet, sent one at a time in creation order by one sender task per client.
///
/// ## A message's life
/// - Created: it gets its id on the device (``MessageIdRules/make()``) and is stored at once in
///   the message cache as a local row (``MessageSyncState/syncing``, sequence 0, a negative
///   version: see ``localVersion(_:)``),
///   so every live list of its channel shows it after the newest stored message — and, with the
///   `.sqlite` cache, the file holds it (a pinned row of `messages`, the outbox itself).
/// - Sent: when connected, the oldest ``MessageSyncState/syncing`` message is sent with its id.
///   The server's answer (or its `messageNew` event, whichever comes first) replaces the local
///   row in place: the same cache key, a higher version — one modification, never a delete and
///   an insert. A repeat of a send whose answer was lost is answered with the stored message
///   (the server's idempotent send), so nothing is ever doubled.
/// - A try that fails for want of a connection (or `unavailable`, `rateLimited`,
///   `unauthorized`) is tried again: at once after the next (re)connect, else after a backoff
///   (0.5 s doubling to 30 s, or the server's `retryAfter`). Later messages wait behind it, so the
///   server stores them in creation order.
/// - A rule failure (`forbidden`, `notFound`, `invalidArgument`, `limitExceeded`, `notAllowed`,
///   `alreadyExists`) parks it as ``MessageSyncState/failed(_:)``: later messages go on; it stays
///   until ``resend(messageId:)`` or ``discard(messageId:)``.
///
/// `close()` of the client ends the sender (the file keeps the outbox for the next start).
///
/// Thread-safe; the sender is one task, woken by a creation, a resend, a connection or the end of
/// a backoff.
final class MessageOutbox: Sendable {
    private struct State: Sendable {
        /// The outbox's messages in creation order: syncing and failed.
        var queue: [Message] = []
        /// The creation time of the newest message: the next one is made later (creation order is
        /// the order of `createdAt`, also after a restart from the file).
        var lastCreatedAt = Date.distantPast
        /// The sender task, while it runs.
        var sender: Task<Void, Never>?
        /// Whether the sender has been woken since it last looked for work.
        var isWoken = false
        /// The sender waiting to be woken.
        var waiting: CheckedContinuation<Void, Never>?
        var isClosed = false
        /// How many tries in a row failed for want of a connection (the backoff's exponent).
        var failures = 0
        /// The number of the last local change (``MessageOutbox/localVersion(_:)``).
        var revision = 0
        /// The connection count after which a connection wakes the sender (registered once per
        /// count with the retry list, not once per backoff).
        var wakesAfterConnection: Int?
    }

    private let sync: SyncEngine
    private let userId: String
    /// Lock order: a leaf (see `LockRank`): nothing is called under it.
    private let state = Lock(State(), rank: .leaf)

    /// An outbox for the client of `sync`, acting for `userId`, holding the messages the cache
    /// file kept (local messages in `restored`, any order).
    init(sync: SyncEngine, userId: String, restored: [Message]) {
        self.sync = sync
        self.userId = userId
        let local = restored.filter(\.isLocal).sorted { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }
        state.withLock { state in
            state.queue = local
            state.lastCreatedAt = local.last?.createdAt ?? .distantPast
            state.revision = local.map { $0.version - Self.localVersionBase }.max() ?? 0
        }
        if local.contains(where: { $0.syncState == .syncing }) { wake() }
    }

    /// The version of a local message's `revision`-th change: negative, so the server's value of
    /// the message (version 1 or more) always replaces it, and growing, so of two local values
    /// the later change wins in the cache and the file — whatever order two threads store them
    /// in (the outbox stores outside its lock).
    static func localVersion(_ revision: Int) -> Int { localVersionBase + revision }
    private static let localVersionBase = -(1 << 48)

    // MARK: Creating, resending, discarding

    /// Makes a local message of `draft` (its chosen id, or one made here), shows it in the
    /// message cache (and the file) at once, and wakes the sender.
    /// - Throws: `ChatError.invalidArgument` for what can be seen on the device (an empty text, a
    ///   malformed channel, mention or message id), `alreadyExists` for an id the outbox holds,
    ///   `ChatClient`'s closed error after `close()`.
    func create(_ draft: MessageDraft) throws(ChatError) -> Message {
        try IdentifierRules.validate(draft.channelId, field: "channelId")
        if draft.text.isEmpty { throw .invalidArgument(field: "text", reason: "must not be empty") }
        for id in draft.mentionedUserIds { try IdentifierRules.validate(id, field: "mentionedUserIds") }
        if let id = draft.messageId { try MessageIdRules.validate(id) }
        let messageId = draft.messageId ?? MessageIdRules.make()
        try sync.checkOpen()
        let message = try state.withLock { (state: inout State) throws(ChatError) -> Message in
            if state.isClosed { throw ChatClient.closedError }
            if state.queue.contains(where: { $0.messageId == messageId }) {
                throw .alreadyExists("message '\(messageId)'")
            }
            // Strictly later than the one before, so creation order survives equal clock readings
            // (and a clock set back).
            let createdAt = max(Date(), state.lastCreatedAt.addingTimeInterval(0.001))
            state.lastCreatedAt = createdAt
            var message = Message(
                messageId: messageId, channelId: draft.channelId, sequence: 0, userId: userId, text: draft.text,
                mentionedUserIds: Array(Set(draft.mentionedUserIds)).sorted(), metadata: draft.metadata,
                createdAt: createdAt)
            message.syncState = .syncing
            state.revision += 1
            message.version = Self.localVersion(state.revision)
            state.queue.append(message)
            return message
        }
        // Stored outside the lock (publishing runs observers); versions order the stores.
        sync.messages.upsert([message])
        wake()
        return message
    }

    /// Queues a failed message again (``MessageSyncState/syncing``, in its place in creation
    /// order) and wakes the sender. A message already syncing is left as it is.
    /// - Throws: `notFound` when the outbox has no such message (never created here, sent, or
    ///   discarded).
    func resend(messageId: String, channelId: String) throws(ChatError) {
        let changed = try state.withLock { (state: inout State) throws(ChatError) -> Message? in
            guard let index = state.queue.firstIndex(where: { $0.messageId == messageId && $0.channelId == channelId })
            else { throw .notFound("unsent message '\(messageId)' in channel '\(channelId)'") }
            guard state.queue[index].syncState != .syncing else { return nil }
            state.failures = 0
            return Self.change(&state, at: index, to: .syncing)
        }
        if let changed { sync.messages.upsert([changed]) }
        wake()
    }

    /// Gives the queued message at `index` another sync state, as a new local change.
    private static func change(_ state: inout State, at index: Int, to syncState: MessageSyncState) -> Message {
        state.revision += 1
        state.queue[index].syncState = syncState
        state.queue[index].version = localVersion(state.revision)
        return state.queue[index]
    }

    /// Removes a message from the outbox and from every list (and the file). One being sent at
    /// this moment may still be stored by the server: its answer then shows it, synced.
    /// - Throws: `notFound` when the outbox has no such message.
    func discard(messageId: String, channelId: String) throws(ChatError) {
        let message = try state.withLock { (state: inout State) throws(ChatError) -> Message in
            guard let index = state.queue.firstIndex(where: { $0.messageId == messageId && $0.channelId == channelId })
            else { throw .notFound("unsent message '\(messageId)' in channel '\(channelId)'") }
            return state.queue.remove(at: index)
        }
        sync.messages.removeLocal([message.cacheKey], error: ChatError.notFound("message '\(messageId)' was discarded"))
    }

    /// The outbox's messages in creation order (syncing and failed), leaving out one the cache
    /// already holds as stored (its answer applied, the sender about to take it off the queue).
    var messages: [Message] {
        state.withLock { $0.queue }.filter { sync.messages.entity($0.cacheKey)?.isLocal ?? true }
    }

    /// Whether the sender waits before trying again after a failed try (a backoff, or the
    /// server's `retryAfter`), until its time is up or a connection, a resend or a creation
    /// wakes it.
    var isWaitingToRetry: Bool {
        state.withLock { $0.failures > 0 && $0.waiting != nil }
    }

    // MARK: The sender

    /// Wakes the sender (starting it if it is not running).
    func wake() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isClosed else { return nil }
            state.isWoken = true
            if state.sender == nil { state.sender = Task { [self] in await run() } }
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    /// Ends the sender; what is queued stays (in the file, with the `.sqlite` cache).
    func close() {
        let (sender, waiting) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            state.isClosed = true
            defer { state.waiting = nil }
            return (state.sender, state.waiting)
        }
        waiting?.resume()
        sender?.cancel()
    }

    /// Sends the outbox's syncing messages in creation order until none is left, then ends.
    private func run() async {
        while let message = nextToSend() {
            let connection = sync.retries.connection
            let outcome: Outcome
            do {
                let draft = MessageDraft(
                    channelId: message.channelId, text: message.text, mentionedUserIds: message.mentionedUserIds,
                    metadata: message.metadata, messageId: message.messageId)
                _ = try await sync.entity(answering: .sendMessage(draft), in: sync.messages, value: \.messageValue)
                outcome = .sent
            } catch {
                outcome = Self.outcome(of: (error as? ChatError) ?? .unavailable("\(error)"))
            }
            let (changed, wait) = finish(message, outcome)
            if let changed { sync.messages.upsert([changed]) }
            if let wait { await pause(wait, connection: connection) }
        }
    }

    private enum Outcome {
        case sent
        case retry(after: Double?)
        case failed(ChatError)
        case closed
    }

    /// Whether an error is worth another try of the same send, or a rule that parks the message.
    private static func outcome(of error: ChatError) -> Outcome {
        switch error {
        case .unavailable, .unauthorized: .retry(after: nil)
        case .rateLimited(let retryAfter): .retry(after: retryAfter)
        case ChatClient.closedError: .closed
        case .notFound, .alreadyExists, .notAllowed, .forbidden, .invalidArgument, .limitExceeded: .failed(error)
        }
    }

    /// The oldest syncing message; `nil` (and the sender ends) when none is.
    private func nextToSend() -> Message? {
        state.withLock { state in
            state.isWoken = false
            guard !state.isClosed, let message = state.queue.first(where: { $0.syncState == .syncing }) else {
                state.sender = nil
                return nil
            }
            return message
        }
    }

    /// Records how a try ended: the message's new local value to store (a failure), and the
    /// seconds to wait before the next try (`nil`: go on at once).
    private func finish(_ message: Message, _ outcome: Outcome) -> (changed: Message?, wait: Double?) {
        state.withLock { state -> (Message?, Double?) in
            let index = state.queue.firstIndex { $0.messageId == message.messageId }
            switch outcome {
            case .sent:
                state.failures = 0
                if let index { state.queue.remove(at: index) }
                return (nil, nil)
            case .closed:
                state.isClosed = true
                return (nil, nil)
            case .failed(let error):
                state.failures = 0
                guard let index, state.queue[index].syncState == .syncing else { return (nil, nil) }
                return (Self.change(&state, at: index, to: .failed(error)), nil)
            case .retry(let after):
                // Discarded meanwhile, or woken (a resend, a new connection): the next try at once.
                guard index != nil, !state.isWoken else { return (nil, nil) }
                state.failures += 1
                // A server's number within reason (NaN and negative: none; at most an hour).
                return (nil, after.map(Backoff.serverWait) ?? Backoff.outbox.delay(afterFailures: state.failures))
            }
        }
    }

    /// Waits `seconds` or until woken (a connection made after `connection`, a resend, a
    /// creation), whichever comes first.
    private func pause(_ seconds: Double?, connection: Int) async {
        // A connection made since the try started (or the next one) wakes the sender at once.
        let registers = state.withLock { state -> Bool in
            guard state.wakesAfterConnection != connection else { return false }
            state.wakesAfterConnection = connection
            return true
        }
        if registers { sync.retries.add(startedIn: connection) { [weak self] in self?.wake() } }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds ?? 0))
            if !Task.isCancelled { self?.wake() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.isWoken || state.isClosed { return true }
                state.waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
    }
}
