import Synchronization

/// A value that fits a machine word, as ``AtomicValue`` stores it.
@usableFromInline
package protocol AtomicWord: Sendable {
    /// The value from its word.
    init(word: Int)
    /// The value as a word.
    var word: Int { get }
}

extension Bool: AtomicWord {
    @inlinable package init(word: Int) { self = word != 0 }
    @inlinable package var word: Int { self ? 1 : 0 }
}

extension Int: AtomicWord {
    @inlinable package init(word: Int) { self = word }
    @inlinable package var word: Int { self }
}

extension UInt: AtomicWord {
    @inlinable package init(word: Int) { self = UInt(bitPattern: word) }
    @inlinable package var word: Int { Int(bitPattern: self) }
}

/// A word-sized value (`Bool`, `Int`, `UInt`) read and written atomically, sequentially
/// consistent: the package's stand-in for `Synchronization.Atomic`, which Apple platforms have
/// only from iOS 18 / macOS 15.
///
/// On Linux it is an `Atomic<Int>` (lock-free). On Apple platforms — or anywhere with
/// `-D LOCKING_PTHREAD`, so that path is compiled and tested on Linux too — the word sits behind
/// a ``Lock``: each operation is one uncontended lock and unlock. Noncopyable, like `Atomic`:
/// keep it in a `let` of a class.
// @unchecked Sendable: the word is reached only through `Atomic` (Linux) or under the `Lock`
// that guards it (Apple platforms); both are safe to share between threads.
@usableFromInline
package struct AtomicValue<Value: AtomicWord>: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin) || LOCKING_PTHREAD
        /// Lock order: ``LockRank/atomicWord``, the innermost rank (taken under any lock, holds none).
        @usableFromInline let storage: Lock<Int>
    #else
        @usableFromInline let storage: Atomic<Int>
    #endif

    /// A value starting at `value`.
    @inlinable
    package init(_ value: Value) {
        #if canImport(Darwin) || LOCKING_PTHREAD
            storage = Lock(value.word, rank: .atomicWord)
        #else
            storage = Atomic(value.word)
        #endif
    }

    /// The current value.
    @inlinable
    package func load() -> Value {
        #if canImport(Darwin) || LOCKING_PTHREAD
            Value(word: storage.withLock { $0 })
        #else
            Value(word: storage.load(ordering: .sequentiallyConsistent))
        #endif
    }

    /// Replaces the value.
    @inlinable
    package func store(_ value: Value) {
        #if canImport(Darwin) || LOCKING_PTHREAD
            storage.withLock { $0 = value.word }
        #else
            storage.store(value.word, ordering: .sequentiallyConsistent)
        #endif
    }

    /// Replaces the value and returns the one it replaced.
    @inlinable
    package func exchange(_ value: Value) -> Value {
        #if canImport(Darwin) || LOCKING_PTHREAD
            Value(
                word: storage.withLock { current in
                    let previous = current
                    current = value.word
                    return previous
                })
        #else
            Value(word: storage.exchange(value.word, ordering: .sequentiallyConsistent))
        #endif
    }
}

extension AtomicValue where Value == Int {
    /// Adds `delta` (wrapping on overflow).
    @inlinable
    package func add(_ delta: Int) {
        #if canImport(Darwin) || LOCKING_PTHREAD
            storage.withLock { $0 &+= delta }
        #else
            storage.wrappingAdd(delta, ordering: .sequentiallyConsistent)
        #endif
    }
}
