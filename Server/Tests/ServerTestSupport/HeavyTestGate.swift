/// Tests that load this 2-core machine heavily (several server processes and a PostgreSQL, a
/// flood of megabytes) run one at a time: run side by side, one starves another's timing. A
/// suite's time limit counts the wait here too, so a suite of such tests gives 10 minutes.
package actor HeavyTestGate {
    package static let shared = HeavyTestGate()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once no other heavy test runs.
    package static func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        await shared.acquire()
        do {
            let result = try await body()
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}
