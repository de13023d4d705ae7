/// An ordered sequence stored as a B-tree of chunks, for snapshots that change a few elements
/// at a time while earlier versions stay alive (published states, observers that fall behind).
///
/// - Copies are O(1) and share structure: a mutation copies only the nodes on the path to the
///   changed position when they are shared (with another copy), and mutates in place when not.
/// - ``count`` is O(1); ``subscript(_:)``, ``insert(_:at:)``, ``remove(at:)`` and
///   ``partitioningIndex(where:)`` are O(log n); ``array`` is O(n).
///
/// Indices are positions `0..<count`, as in an array. A value type; a copy never changes when
/// another copy is mutated. Sendable when its elements are: shared nodes are never mutated.
@usableFromInline
package struct PersistentArray<Element>: Sendable where Element: Sendable {
    @usableFromInline var root: PersistentArrayNode<Element>

    /// An empty sequence.
    @inlinable
    package init() {
        root = PersistentArrayNode(leaf: [])
    }

    /// The elements of `elements`, in order.
    /// - Complexity: O(n).
    @inlinable
    package init(_ elements: some Sequence<Element>) {
        root = PersistentArrayNode.build(Array(elements))
    }

    /// The number of elements. O(1).
    @inlinable package var count: Int { root.count }

    /// Whether there are no elements. O(1).
    @inlinable package var isEmpty: Bool { root.count == 0 }

    /// The element at `index` (`0..<count`; a trap otherwise, as for an array).
    /// - Complexity: O(log n); setting copies the path to `index` if it is shared.
    @inlinable
    package subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
            return root.element(at: index)
        }
        set {
            precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
            makeRootUnique()
            root.replace(at: index, with: newValue)
        }
    }

    /// The first element, if any. O(log n).
    @inlinable package var first: Element? { isEmpty ? nil : root.element(at: 0) }

    /// The last element, if any. O(1): every node keeps its own.
    @inlinable package var last: Element? { root.last }

    /// Inserts `element` so that it is at `index` (`0...count`).
    /// - Complexity: O(log n).
    @inlinable
    package mutating func insert(_ element: Element, at index: Int) {
        precondition(index >= 0 && index <= count, "insertion index \(index) out of range 0...\(count)")
        makeRootUnique()
        if let sibling = root.insert(element, at: index) {
            root = PersistentArrayNode(children: [root, sibling])
        }
    }

    /// Appends `element`. O(log n).
    @inlinable
    package mutating func append(_ element: Element) {
        insert(element, at: count)
    }

    /// Removes and returns the element at `index` (`0..<count`).
    /// - Complexity: O(log n).
    @inlinable
    @discardableResult
    package mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
        makeRootUnique()
        let removed = root.remove(at: index)
        // A root with one child hands over to it; an emptied root becomes an empty leaf.
        while !root.isLeaf && root.children.count <= 1 {
            root = root.children.first ?? PersistentArrayNode(leaf: [])
        }
        return removed
    }

    /// The first index whose element satisfies `predicate`, or ``count`` when none does. The
    /// elements must be partitioned by it: every element that fails it comes first.
    /// - Complexity: O(log n) calls of `predicate`.
    @inlinable
    package func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Int {
        try root.partitioningIndex(where: predicate)
    }

    /// The elements as an array.
    /// - Complexity: O(n).
    @inlinable
    package var array: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        root.append(to: &result)
        return result
    }

    /// Calls `body` with each element, in order.
    /// - Complexity: O(n).
    @inlinable
    package func forEach(_ body: (Element) throws -> Void) rethrows {
        try root.forEach(body)
    }

    @inlinable
    mutating func makeRootUnique() {
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
    }

}

extension PersistentArray where Element: Equatable {
    /// Whether every node satisfies the tree's invariants (counts add up, capacities hold, all
    /// leaves at one depth, each node knows its last element). For tests.
    package var isBalanced: Bool { root.check(isRoot: true, same: ==) != nil }
}

extension PersistentArray {
    /// Traps unless every node satisfies the tree's invariants (those ``isBalanced`` checks),
    /// telling by `same` whether a node's remembered last element is its last one (identity, for
    /// elements that are not `Equatable`). For owners' own invariant checks: a no-op in release
    /// builds.
    /// - Complexity: O(n).
    package func checkInvariants(same: (Element, Element) -> Bool) {
        #if DEBUG
            precondition(root.check(isRoot: true, same: same) != nil, "a node of the tree breaks its invariants")
        #endif
    }
}
