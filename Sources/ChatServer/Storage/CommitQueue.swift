import ChatAPI

/// What a ``CommitQueue`` batches: changes that merge, newer over older, into one commit.
protocol CommitBatch: Sendable {
    /// An empty batch.
    init()
    var isEmpty: Bool { get }
    /// Adds `newer` over this batch (what `newer` changes again wins).
    mutating func merge(_ newer: Self)
}

extension StorageChanges: CommitBatch {}

/// The one batching writer's bookkeeping (group commit), for every writer of the server's
/// storage: ``DatabaseServerStore`` (rows: the SQLite file, a database) and ``LogAppender`` (a
/// node's entries of the cluster's change log). Changes are queued under tickets, batches taken
/// by one writer, and callers wait for their ticket's commit. A plain value; its owner keeps it
/// under its lock and does the writing itself.
///
/// - A batch holds everything queued when it was taken (``takeBatch()``): the changes of many
///   calls share one commit.
/// - A failed commit fails the tickets it covered and puts back ahead of newer changes what the
///   owner keeps of it (all of it by default: ``finish(_:through:with:keeping:)``): written by a
///   later commit, but never acknowledged.
struct CommitQueue<Batch: CommitBatch>: Sendable {
    typealias Waiter = (ticket: Int, continuation: CheckedContinuation<Void, any Error>)

    private(set) var pending = Batch()
    /// The newest ticket handed out; its batch is pending or written.
    private(set) var lastTicket = 0
    private var committedThrough = 0
    /// The newest ticket whose commit failed, and why (until a later commit covers it).
    private var failedThrough = 0
    private var failure: ChatError?
    private var waiters: [Waiter] = []
    /// Whether a writer is taking batches now.
    var isWriting = false {
        didSet { if !isWriting { idle.append(contentsOf: idleWaiters); idleWaiters = [] } }
    }
    /// Who waits for the writer to stop (``DatabaseServerStore/close()``), and those to wake
    /// once the lock is released (``takeIdle()``).
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var idle: [CheckedContinuation<Void, Never>] = []

    /// The waiters to wake because the writer stopped (resume them after the lock).
    mutating func takeIdle() -> [CheckedContinuation<Void, Never>] {
        defer { idle = [] }
        return idle
    }
    /// Set when the store closes: nothing more is queued.
    var isClosed = false
    /// The number of transactions committed so far.
    private(set) var commits = 0
    /// Whether the last commit tried failed (until one succeeds).
    private(set) var lastCommitFailed = false

    /// Queues `changes`; the ticket to wait for (the newest one when `changes` is empty, so a
    /// caller waits for what it has seen to be written).
    mutating func add(_ changes: Batch) -> Int {
        guard !changes.isEmpty, !isClosed else { return lastTicket }
        pending.merge(changes)
        lastTicket += 1
        return lastTicket
    }

    /// Takes everything pending as one batch, with the newest ticket it covers.
    mutating func takeBatch() -> (changes: Batch, through: Int) {
        defer { pending = Batch() }
        return (pending, lastTicket)
    }

    /// Forgets what is pending (an owner that stops without writing it).
    mutating func discardPending() {
        pending = Batch()
    }

    /// Records how the commit of a batch covering tickets up to `through` ended; the waiters it
    /// answers, to resume outside the lock. After a failure, what `keeping` returns of the batch
    /// is put back ahead of what was queued since.
    mutating func finish(
        _ batch: Batch, through: Int, with result: Result<Void, ChatError>, keeping: (Batch) -> Batch = { $0 }
    ) -> [(Waiter, Result<Void, ChatError>)] {
        switch result {
        case .success:
            committedThrough = through
            commits += 1
            lastCommitFailed = false
        case .failure(let error):
            lastCommitFailed = true
            var kept = keeping(batch)
            kept.merge(pending)
            pending = kept
            failedThrough = through
            failure = error
        }
        let due = waiters.filter { $0.ticket <= through }
        waiters.removeAll { $0.ticket <= through }
        return due.map { ($0, result) }
    }

    /// How the wait for `ticket` ends now, or `nil` after queuing `continuation` to be told
    /// later. `closed` is the error of a store closed with nothing left to write.
    mutating func outcome(
        of ticket: Int, closed: @autoclosure () -> ChatError, continuation: CheckedContinuation<Void, any Error>
    ) -> Result<Void, ChatError>? {
        if committedThrough >= ticket { return .success(()) }
        if failedThrough >= ticket, let failure { return .failure(failure) }
        if isClosed && !isWriting { return .failure(closed()) }
        waiters.append((ticket, continuation))
        return nil
    }

    /// The waiters left when the store closed (they are failed).
    mutating func takeWaiters() -> [Waiter] {
        defer { waiters = [] }
        return waiters
    }
}

extension CommitQueue {
    /// Resumes waiters with their outcomes (outside the lock).
    static func resume(_ answered: [(Waiter, Result<Void, ChatError>)]) {
        for (waiter, outcome) in answered { waiter.continuation.resume(with: outcome.mapError { $0 as any Error }) }
    }
}
