import ChatAPI

/// The first `size` elements of a stream in a page ordering, kept while the stream is offered
/// one element at a time: a page of a keyset-paginated list without sorting every match.
///
/// - Complexity: O(log size) comparisons per offered element (one sort key each), O(size)
///   moves per element that enters the page; memory O(size).
struct PageSelection<Ordering: PageOrdering> where Ordering.Element: Sendable & Hashable & Codable {
    let ordering: Ordering
    let size: Int
    /// Sorted; holds up to `size + 1` entries, the last one only to know whether more follow.
    private var best: [(key: SortKey, element: Ordering.Element)] = []

    init(ordering: Ordering, size: Int) {
        self.ordering = ordering
        self.size = size
        best.reserveCapacity(size + 2)
    }

    /// Whether the page is full and it is known that more follow (`size + 1` kept): an element
    /// offered from now on enters only if it sorts before one kept.
    var isOverfull: Bool { best.count > size }

    /// Considers `element` (which must sort after the page's cursor).
    mutating func offer(_ element: Ordering.Element) {
        let key = ordering.sortKey(for: element)
        if best.count > size, let last = best.last, key.compare(last.key) != .orderedAscending { return }
        var low = 0
        var high = best.count
        while low < high {
            let middle = (low + high) / 2
            if key.compare(best[middle].key) == .orderedAscending { high = middle } else { low = middle + 1 }
        }
        best.insert((key, element), at: low)
        if best.count > size + 1 { best.removeLast() }
    }

    /// The page: the first `size` elements offered, mapped by `finish` (e.g. to the viewer's
    /// view), the cursor after the last one (or `cursor` when empty), and whether more follow.
    func page(after cursor: PageCursor?, finish: (Ordering.Element) -> Ordering.Element = { $0 }) -> Page<Ordering.Element> {
        let selected = best.prefix(size).map(\.element)
        let next = selected.last.map { ordering.cursor(after: $0) } ?? cursor
        return Page(items: selected.map(finish), next: next, hasNext: best.count > size)
    }
}
