/// Lets a screen wait — without a clock — until what its delegate heard satisfies a condition.
@MainActor
final class Waiter {
    private var waiting: [(condition: @MainActor () -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once `condition` holds (checked now and after each ``check()``).
    func until(_ condition: @escaping @MainActor () -> Bool) async {
        if condition() { return }
        await withCheckedContinuation { waiting.append((condition, $0)) }
    }

    /// Call after anything changed.
    func check() {
        let ready = waiting.filter { $0.condition() }
        waiting.removeAll { $0.condition() }
        for waiter in ready { waiter.continuation.resume() }
    }
}
