import Locking

/// A thread-safe list of recorded values, for observer callbacks in tests.
public final class Recorder<Value: Sendable>: Sendable {
    private let storage = Lock<[Value]>([])

    public init() {}

    public func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    public var values: [Value] { storage.withLock { $0 } }
    public var count: Int { storage.withLock { $0.count } }
    public var last: Value? { storage.withLock { $0.last } }
}
