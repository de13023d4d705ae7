import ChatAPI
import LiveChannels
import LiveCore
import Locking

/// Bounded waits that observe statuses instead of sleeping.
///
/// Each wait observes the handle (its `updates` or `values`) until the condition holds, raced
/// against a watchdog that gives up after a number of scheduler turns (`Task.yield()`), so a
/// handle stuck in `.loading` — a bug — is reported instead of hanging the suite. Nothing here
/// reads the wall clock or sleeps.
enum Settling {
    /// Scheduler turns a wait may take before it gives up. In-process requests answer in a few
    /// turns; the budget only matters when something is stuck.
    static let defaultBudget = 2_000_000

    /// Runs `body` against a watchdog of `budget` scheduler turns. `body` runs in a task of its
    /// own, cancelled (and abandoned) when the watchdog fires, so a stuck call cannot hang the
    /// caller.
    /// - Returns: `body`'s result, or `false` when the watchdog fired first.
    static func within(_ budget: Int = defaultBudget, _ body: @escaping @Sendable () async -> Bool) async -> Bool {
        let outcome = Outcome()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            outcome.install(continuation)
            let work = Task {
                outcome.finish(await body())
            }
            Task {
                for _ in 0..<budget {
                    if outcome.isFinished { return }
                    await Task.yield()
                }
                outcome.finish(false)
                work.cancel()
            }
        }
    }

    /// Waits until the collection is not loading.
    static func idle<Element>(_ collection: LiveCollection<Element>, budget: Int = defaultBudget) async -> Bool {
        if collection.loadingStatus != .loading { return true }
        return await within(budget) {
            for await update in collection.updates where update.loadingStatus != .loading { return true }
            return collection.loadingStatus != .loading
        }
    }

    /// Waits until the object is not loading.
    static func idle<Value>(_ object: LiveObject<Value>, budget: Int = defaultBudget) async -> Bool {
        if object.loadingStatus != .loading { return true }
        return await within(budget) {
            for await _ in object.values where object.loadingStatus != .loading { return true }
            return object.loadingStatus != .loading
        }
    }

    /// Waits until the client's connection is in one of `states`.
    static func connection(
        of client: ChatClient, in states: Set<ConnectionState>, budget: Int = defaultBudget
    ) async -> Bool {
        if let state = client.connectionState.snapshot, states.contains(state) { return true }
        return await within(budget) {
            for await state in client.connectionState.values {
                if let state, states.contains(state) { return true }
            }
            return false
        }
    }

    /// `client.synchronize()`, bounded.
    static func synchronize(_ client: ChatClient, budget: Int = defaultBudget) async -> Bool {
        await within(budget) {
            await client.synchronize()
            return true
        }
    }
}

/// The first of two racers to finish resumes the waiting continuation; the other is ignored.
private final class Outcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var result: Bool?
    }

    // Guards the waiting continuation and the result, set once by whichever racer finishes first.
    private let state = Lock(State())

    var isFinished: Bool { state.withLock { $0.result != nil } }

    func install(_ continuation: CheckedContinuation<Bool, Never>) {
        let ready: Bool? = state.withLock { state in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func finish(_ result: Bool) {
        let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }
}
