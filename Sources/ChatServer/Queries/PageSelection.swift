import ChatAPI

/// The first `size` elements of a stream in a page ordering, kept while the stream is offered
/// one element at a time: a page of a keyset-paginated list without sorting every match.
///
/// - Complexity: O(log size) comparisons per offered element (one sort key each), O(size)
///   moves per element that enters the page; memory O(size).
struct PageSelection<Ordering: PageOrdering> where Ordering.Element: Sendable & Hashable & Codable {
    let ordering: Ordering
    let size: Int
    /// Entries kept beyond `size + 1`, so that as many can be withdrawn (``remove(where:)``)
    /// while the page stays exact.
    let spare: Int
    /// Sorted; holds up to `size + 1 + spare` entries, those past `size` only to know whether
    /// more follow (and to stand in for withdrawn ones).
    private var best: [(key: SortKey, element: Ordering.Element)] = []
    /// Whether an offered element was dropped or turned away for lack of room.
    private(set) var hasDropped = false

    init(ordering: Ordering, size: Int, spare: Int = 0) {
        self.ordering = ordering
        self.size = size
        self.spare = spare
        best.reserveCapacity(size + 2 + spare)
    }

    private var capacity: Int { size + 1 + spare }

    /// Whether the page is full and it is known that more follow (`size + 1` kept): an element
    /// offered from now on enters only if it sorts before one kept.
    var isOverfull: Bool { best.count > size }

    /// Whether the page is still exact after withdrawals: nothing was dropped, or at least
    /// `size + 1` entries are kept.
    var isExact: Bool { !hasDropped || best.count > size }

    /// Withdraws the kept elements that satisfy `predicate` (elements that changed since they
    /// were offered); returns how many.
    /// - Complexity: O(kept).
    @discardableResult
    mutating func remove(where predicate: (Ordering.Element) -> Bool) -> Int {
        let before = best.count
        best.removeAll { predicate($0.element) }
        return before - best.count
    }

    /// Considers `element` (which must sort after the page's cursor).
    mutating func offer(_ element: Ordering.Element) {
        let key = ordering.sortKey(for: element)
        if best.count >= capacity, let last = best.last, key.compare(last.key) != .orderedAscending {
            hasDropped = true
            return
        }
        var low = 0
        var high = best.count
        while low < high {
            let middle = (low + high) / 2
            if key.compare(best[middle].key) == .orderedAscending { high = middle } else { low = middle + 1 }
        }
        best.insert((key, element), at: low)
        if best.count > capacity {
            best.removeLast()
            hasDropped = true
        }
    }

    /// The page: the first `size` elements offered, mapped by `finish` (e.g. to the viewer's
    /// view), the cursor after the last one (or `cursor` when empty), and whether more follow.
    func page(after cursor: PageCursor?, finish: (Ordering.Element) -> Ordering.Element = { $0 }) -> Page<
        Ordering.Element
    > {
        let selected = best.prefix(size).map(\.element)
        let next = selected.last.map { ordering.cursor(after: $0) } ?? cursor
        return Page(items: selected.map(finish), next: next, hasNext: best.count > size)
    }
}
