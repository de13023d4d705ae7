import ChatAPI
import LiveCore

/// The one state machine behind every controller's ``DataController/state`` and
/// ``DataController/synchronize()``: controllers differ in what they show, not in how they
/// start, settle, fail and retry.
///
/// - `state` moves as the statuses of the handle the controller follows are delivered
///   (``follow(dataStatus:loadingStatus:error:)``, by ``DataControllerState/transitions(dataStatus:loadingStatus:error:)``),
///   each new state told through ``didChangeState``.
/// - ``begin(_:)`` starts the controller once: concurrent and later callers await the same start;
///   a start that throws (a conversation that could not be created) runs again on the next call.
/// - ``synchronize(client:start:settled:failure:)`` is what every `synchronize()` does: start
///   once, wait until the controller shows its handles' newest state, and, on a repeated call
///   after a failed load, ask the server again first.
///
/// Main-actor, like the controllers.
@MainActor
final class ControllerLifecycle {
    /// Where the controller's data comes from.
    private(set) var state: DataControllerState = .initialized
    /// Called with each new state, `state` already showing it.
    var didChangeState: ((DataControllerState) -> Void)?
    /// The start, once begun.
    private var starting: Task<Void, any Error>?

    /// Whether the start was begun (it may still be running).
    var isStarted: Bool { starting != nil }

    /// Moves `state` as a delivery with these statuses says.
    func follow(dataStatus: DataStatus, loadingStatus: LoadingStatus, error: (any Error)?) {
        for next in state.transitions(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error) {
            enter(next)
        }
    }

    /// Enters `next` (nothing happens when it is the current state).
    func enter(_ next: DataControllerState) {
        guard next != state else { return }
        state = next
        didChangeState?(next)
    }

    /// Runs `start` unless it was begun before; returns once the start has finished, and whether
    /// this call began it (`false`: a repeated call).
    /// - Throws: what `start` threw; the next call then begins again.
    @discardableResult
    func begin(_ start: @escaping @MainActor () async throws -> Void) async throws -> Bool {
        let isFirst = starting == nil
        let task = starting ?? Task { @MainActor in try await start() }
        starting = task
        do {
            try await task.value
        } catch {
            if starting == task { starting = nil }
            throw error
        }
        return isFirst
    }

    /// Starts once (`start`), then returns when the controller shows its handles' newest state
    /// (`settled`); a repeated call whose last load failed first asks the server again
    /// (``ChatClient/retryFailedLoads()``, which runs every failed load again).
    /// - Throws: `start`'s error, or the load's (`failure`) once settled.
    func synchronize(
        client: ChatClient, start: @escaping @MainActor () async throws -> Void, settled: () async -> Void,
        failure: () -> (any Error)?
    ) async throws {
        let isFirst = try await begin(start)
        await settled()
        if !isFirst, failure() != nil {
            await client.retryFailedLoads()
            await settled()
        }
        if let error = failure() { throw error }
    }

    // MARK: List controllers

    /// Moves `state` as a delivery of `collection` says.
    func follow<Item>(_ collection: LiveCollection<Item>) {
        follow(dataStatus: collection.dataStatus, loadingStatus: collection.loadingStatus, error: collection.error)
    }

    /// A list controller's `synchronize()`: starts showing the list `makeList` makes (once) and
    /// loads its first page, then as ``synchronize(client:start:settled:failure:)``.
    func synchronize<Item>(
        _ binding: LiveListBinding<Item>, client: ChatClient,
        list makeList: @escaping @MainActor () -> PagedLiveList<Item>
    ) async throws {
        try await synchronize(
            client: client,
            start: {
                binding.start(makeList())
                await binding.load(limit: nil)
            },
            settled: { await binding.settled() }, failure: { binding.loadError })
    }

    /// A list controller's `loadNext…(limit:)`: the next `limit` items once the list shows what
    /// was loading (the first `limit` when not started: the list `makeList` makes).
    /// - Throws: `ChatError.invalidArgument(field: "limit")` for a limit out of
    ///   1…`ChannelListQuery.maximumPageSize`; the load's error.
    func loadNext<Item>(
        _ limit: Int, of binding: LiveListBinding<Item>, list makeList: @escaping @MainActor () -> PagedLiveList<Item>
    ) async throws {
        try LiveListBinding<Item>.validate(limit: limit)
        let began = try await begin {
            binding.start(makeList())
            await binding.load(limit: limit)
        }
        if !began {
            await binding.settled()
            await binding.load(limit: limit)
        }
        if let error = binding.loadError { throw error }
    }
}
