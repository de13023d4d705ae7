/// A node of a ``PersistentArray``: a leaf holding a chunk of elements, or an internal node
/// holding children and the number of elements below it. All leaves are at the same depth.
///
/// Mutated only while uniquely referenced (the tree copies a shared node before it changes it),
/// so a node reachable from more than one tree never changes — hence `@unchecked Sendable`.
/// For the same reason no two accesses to a node's storage can overlap: the run-time
/// exclusivity checks (which cost more than the tree's own work) are turned off for it.
@usableFromInline
// @unchecked: no lock — a node is mutated only by the tree that references it uniquely
// (`makeRootUnique`/`makeChildUnique` copy a shared node first), so shared nodes are immutable.
final class PersistentArrayNode<Element: Sendable>: @unchecked Sendable {
    /// Elements below this node.
    @exclusivity(unchecked) @usableFromInline var count: Int
    /// A leaf's elements (empty for internal nodes).
    @exclusivity(unchecked) @usableFromInline var elements: [Element]
    /// An internal node's children (empty for leaves).
    @exclusivity(unchecked) @usableFromInline var children: [PersistentArrayNode]
    /// The last element below this node (`nil` only for an empty root): searches compare
    /// against it to pick a child in one step, rather than walking down to it.
    @exclusivity(unchecked) @usableFromInline var last: Element?
    @usableFromInline let isLeaf: Bool

    @inlinable
    init(leaf elements: [Element]) {
        self.elements = elements
        children = []
        count = elements.count
        last = elements.last
        isLeaf = true
    }

    @inlinable
    init(children: [PersistentArrayNode]) {
        elements = []
        self.children = children
        var count = 0
        for child in children { count += child.count }
        self.count = count
        last = children.last?.last
        isLeaf = false
    }

    @inlinable
    init(copying node: PersistentArrayNode) {
        elements = node.elements
        children = node.children
        count = node.count
        last = node.last
        isLeaf = node.isLeaf
    }

    /// Recomputes ``last`` after this node's own entries changed. O(1).
    @inlinable
    func refreshLast() {
        last = isLeaf ? elements.last : children.last?.last
    }

    /// Elements per leaf at most: leaves of about 512 bytes (16–64 elements), so that copying a
    /// shared leaf — which every change to a tree a snapshot still holds does — stays cheap.
    @inlinable static var leafCapacity: Int {
        Swift.max(16, Swift.min(64, 512 / Swift.max(1, MemoryLayout<Element>.stride)))
    }
    /// Children per internal node at most.
    @inlinable static var internalCapacity: Int { 32 }

    @inlinable
    func copy() -> PersistentArrayNode { PersistentArrayNode(copying: self) }

    /// A tree holding `elements`, leaves filled to three quarters (room to insert without
    /// splitting at once).
    @inlinable
    static func build(_ elements: [Element]) -> PersistentArrayNode {
        let perLeaf = Swift.max(1, leafCapacity * 3 / 4)
        guard elements.count > perLeaf else { return PersistentArrayNode(leaf: elements) }
        var level: [PersistentArrayNode] = stride(from: 0, to: elements.count, by: perLeaf).map {
            PersistentArrayNode(leaf: Array(elements[$0..<Swift.min($0 + perLeaf, elements.count)]))
        }
        let perNode = internalCapacity * 3 / 4
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: perNode).map {
                PersistentArrayNode(children: Array(level[$0..<Swift.min($0 + perNode, level.count)]))
            }
        }
        return level[0]
    }

    // MARK: Reading

    /// The child holding position `index` and the position within it. For an insertion,
    /// `index == count` lands in the last child.
    // Readers copy `children` into a local once (one retain rather than one per read).
    @inlinable
    func locate(_ index: Int) -> (child: Int, offset: Int) {
        let children = children
        var offset = index
        for child in children.indices {
            let size = children[child].count
            if offset < size { return (child, offset) }
            offset -= size
        }
        return (children.count - 1, offset + children[children.count - 1].count)
    }

    @inlinable
    func element(at index: Int) -> Element {
        var node = self
        var offset = index
        while !node.isLeaf {
            let children = node.children
            var child = 0
            while offset >= children[child].count && child < children.count - 1 {
                offset -= children[child].count
                child += 1
            }
            node = children[child]
        }
        return node.elements[offset]
    }

    @inlinable
    func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Int {
        var node = self
        var base = 0
        while !node.isLeaf {
            // The first child whose last element satisfies the predicate holds the answer.
            let children = node.children
            let low = try children.partitioningIndex { try predicate($0.last!) }
            if low == children.count { return base + node.count }
            for child in 0..<low { base += children[child].count }
            node = children[low]
        }
        return try base + node.elements.partitioningIndex(where: predicate)
    }

    @inlinable
    func append(to result: inout [Element]) {
        if isLeaf {
            result.append(contentsOf: elements)
        } else {
            for child in children { child.append(to: &result) }
        }
    }

    @inlinable
    func forEach(_ body: (Element) throws -> Void) rethrows {
        if isLeaf {
            for element in elements { try body(element) }
        } else {
            for child in children { try child.forEach(body) }
        }
    }

    // MARK: Writing (self is uniquely referenced)

    @inlinable
    func makeChildUnique(_ child: Int) {
        if !isKnownUniquelyReferenced(&children[child]) { children[child] = children[child].copy() }
    }

    @inlinable
    func replace(at index: Int, with element: Element) {
        if isLeaf {
            elements[index] = element
            if index == elements.count - 1 { last = element }
            return
        }
        let (child, offset) = locate(index)
        makeChildUnique(child)
        children[child].replace(at: offset, with: element)
        if child == children.count - 1 { last = children[child].last }
    }

    /// Inserts; returns the new right sibling when this node overflowed and split.
    @inlinable
    func insert(_ element: Element, at index: Int) -> PersistentArrayNode? {
        count += 1
        if isLeaf {
            elements.insert(element, at: index)
            if index == elements.count - 1 { last = element }
            guard elements.count > Self.leafCapacity else { return nil }
            let half = elements.count / 2
            let right = PersistentArrayNode(leaf: Array(elements[half...]))
            elements.removeSubrange(half...)
            count = elements.count
            refreshLast()
            return right
        }
        let (child, offset) = locate(index)
        makeChildUnique(child)
        let sibling = children[child].insert(element, at: offset)
        if let sibling { children.insert(sibling, at: child + 1) }
        if child >= children.count - 2 { refreshLast() }
        guard sibling != nil, children.count > Self.internalCapacity else { return nil }
        let half = children.count / 2
        let right = PersistentArrayNode(children: Array(children[half...]))
        children.removeSubrange(half...)
        count -= right.count
        refreshLast()
        return right
    }

    /// Removes the element at `index`; drops emptied children and merges an underfull child
    /// into a neighbour when both fit in one node (so that nodes stay reasonably full).
    @inlinable
    func remove(at index: Int) -> Element {
        count -= 1
        if isLeaf {
            let removed = elements.remove(at: index)
            if index == elements.count { last = elements.last }
            return removed
        }
        let (child, offset) = locate(index)
        makeChildUnique(child)
        let removed = children[child].remove(at: offset)
        if children[child].count == 0 {
            children.remove(at: child)
        } else {
            mergeIfUnderfull(child)
        }
        if child >= children.count - 1 { refreshLast() }
        return removed
    }

    /// The number of entries (elements or children) a node holds directly.
    @inlinable var width: Int { isLeaf ? elements.count : children.count }
    @inlinable var capacity: Int { isLeaf ? Self.leafCapacity : Self.internalCapacity }

    @inlinable
    func mergeIfUnderfull(_ child: Int) {
        let node = children[child]
        guard node.width < node.capacity / 4 else { return }
        let neighbour = child + 1 < children.count ? child + 1 : child - 1
        guard neighbour >= 0, node.width + children[neighbour].width <= node.capacity else { return }
        let (left, right) = (Swift.min(child, neighbour), Swift.max(child, neighbour))
        makeChildUnique(left)
        let absorbed = children[right]
        if absorbed.isLeaf {
            children[left].elements.append(contentsOf: absorbed.elements)
        } else {
            children[left].children.append(contentsOf: absorbed.children)
        }
        children[left].count += absorbed.count
        children[left].last = absorbed.last
        children.remove(at: right)
    }

    // MARK: Checking

    /// The depth below this node when its invariants hold, else `nil`. `same` tells whether
    /// two elements are the same one (to check each node's ``last``).
    func check(isRoot: Bool, same: (Element, Element) -> Bool) -> Int? {
        if isLeaf {
            guard count == elements.count, elements.count <= Self.leafCapacity, isRoot || count > 0 else {
                return nil
            }
            switch (last, elements.last) {
            case (nil, nil): return 0
            case (let last?, let actual?) where same(last, actual): return 0
            default: return nil
            }
        }
        guard !children.isEmpty, children.count <= Self.internalCapacity else { return nil }
        guard let last, let childLast = children[children.count - 1].last, same(last, childLast) else {
            return nil
        }
        var depth: Int?
        var total = 0
        for child in children {
            guard let below = child.check(isRoot: false, same: same), depth == nil || depth == below
            else { return nil }
            depth = below
            total += child.count
        }
        guard total == count, let depth else { return nil }
        return depth + 1
    }
}
