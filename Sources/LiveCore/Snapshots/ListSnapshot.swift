import Locking

/// The snapshot of a live collection as the observation machinery carries it: an array, or a
/// ``PersistentArray`` that is turned into an array only when someone reads one (and then once
/// per snapshot). Counting and indexing never build the array, so an observer that reads
/// `count` and `object(at:)` — a table view's data source — pays O(log n), not O(n).
@usableFromInline
final class ListSnapshot<Element: Sendable>: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case array([Element])
        case tree(PersistentArray<Element>)
        /// A tree of something else (an element with its sort key, say), read through a closure.
        case projected(count: Int, element: @Sendable (Int) -> Element, elements: @Sendable () -> [Element])
    }

    @usableFromInline let storage: Storage
    /// The tree's elements as an array, once read. Lock order: a leaf, taken inside commits
    /// (see `LockRank`).
    private let materialized = Lock<[Element]?>(nil, rank: .leaf)

    @inlinable
    init(_ elements: [Element]) {
        storage = .array(elements)
    }

    @inlinable
    init(_ elements: PersistentArray<Element>) {
        storage = .tree(elements)
    }

    /// The elements of `stored`, each read through `project`: for owners that keep more per
    /// element than observers see. `project` must be cheap (it runs on every read).
    @inlinable
    init<Stored: Sendable>(_ stored: PersistentArray<Stored>, project: @escaping @Sendable (Stored) -> Element) {
        storage = .projected(
            count: stored.count, element: { project(stored[$0]) },
            elements: {
                var elements: [Element] = []
                elements.reserveCapacity(stored.count)
                stored.forEach { elements.append(project($0)) }
                return elements
            })
    }

    /// The snapshot in `box`, which must be a `ListSnapshot<Element>`.
    @inlinable
    static func unbox(_ box: any AnyObject & Sendable) -> ListSnapshot {
        unsafeDowncast(box, to: ListSnapshot<Element>.self)
    }

    /// The number of elements. O(1).
    @inlinable
    var count: Int {
        switch storage {
        case .array(let elements): elements.count
        case .tree(let elements): elements.count
        case .projected(let count, _, _): count
        }
    }

    /// The element at `index` (in range). O(1) for an array, O(log n) for a tree.
    @inlinable
    subscript(index: Int) -> Element {
        switch storage {
        case .array(let elements): elements[index]
        case .tree(let elements): elements[index]
        case .projected(_, let element, _): element(index)
        }
    }

    /// The elements as an array: O(1) for an array; O(n) the first time for a tree, then O(1).
    @inlinable
    var array: [Element] {
        switch storage {
        case .array(let elements): elements
        case .tree(let elements): materialize { elements.array }
        case .projected(_, _, let elements): materialize(elements)
        }
    }

    @usableFromInline
    func materialize(_ build: () -> [Element]) -> [Element] {
        materialized.withLock { cached in
            if let cached { return cached }
            let array = build()
            cached = array
            return array
        }
    }
}
