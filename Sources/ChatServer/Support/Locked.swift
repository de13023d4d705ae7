import Synchronization

/// A value guarded by a lock: the one way the server's mutable state is shared between threads.
/// Every access goes through `withLock(_:)`, whose closure runs with the lock held, so it must
/// not call back into anything that takes the same lock.
typealias Locked<Value> = Mutex<Value>
