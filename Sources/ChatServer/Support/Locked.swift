import Foundation

/// A value guarded by a lock: the one way the server's mutable state is shared between threads.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15 and the package supports macOS 14.
///
/// - Threading: every access goes through ``withLock(_:)``; the closure runs with the lock held,
///   so it must not call back into anything that takes the same lock.
final class Locked<Value>: @unchecked Sendable {
    // `lock` guards `value`: it is read and written only inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
