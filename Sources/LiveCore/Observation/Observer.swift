import Locking

/// One registered callback and the gate that enforces token semantics: once ``close()``
/// returns, the callback is not running on another thread and never starts again.
final class Observer: Sendable {
    private let callback: @Sendable (Delivery) -> Void
    /// Cleared by `close()`; checked under `gate` before every callback.
    private let isOpen = AtomicValue<Bool>(true)
    /// The thread running the callback, or 0. Lets `close()` called from inside the callback
    /// return without waiting for itself.
    private let runningThread = AtomicValue<UInt>(0)
    /// Held while the callback runs (it serializes nothing else: deliveries to one observer are
    /// already serial), so that `close()` can wait for a running callback to finish. Lock order:
    /// outside it (`LockRank.unordered`): a callback may take any lock, another observer's gate
    /// included; what it takes is checked against the locks held around the gate.
    private let gate = Lock<Void>((), rank: .unordered)

    init(_ callback: @escaping @Sendable (Delivery) -> Void) {
        self.callback = callback
    }

    var isClosed: Bool { !isOpen.load() }

    /// Runs the callback unless the observer was closed.
    func deliver(_ delivery: Delivery) {
        gate.withLock { _ in
            guard isOpen.load() else { return }
            runningThread.store(currentThreadID())
            callback(delivery)
            runningThread.store(0)
        }
    }

    /// Stops all further callbacks; waits for one running on another thread to return.
    func close() {
        isOpen.store(false)
        if runningThread.load() == currentThreadID() { return }
        gate.withLock { _ in }
    }
}
