import Foundation

/// An ordering of elements for keyset pagination: it maps each element to a `SortKey` whose last
/// component is the element's unique id, so the order is total.
///
/// `ChannelListQuery`, `MemberListQuery` and `UserSearchQuery` conform; the extension gives them
/// all the same comparator, cursors and paging, used by the server to answer and by the client
/// to place live updates.
public protocol PageOrdering: Sendable {
    /// The kind of value the ordering sorts.
    associatedtype Element: Sendable

    /// Identifies the ordering. A cursor made by an ordering with another fingerprint is
    /// rejected by `validate(_:)`.
    var orderingFingerprint: String { get }

    /// The element's position.
    func sortKey(for element: Element) -> SortKey
}

extension PageOrdering {
    /// The three-way comparison of two elements in this ordering.
    public func compare(_ a: Element, _ b: Element) -> ComparisonResult {
        sortKey(for: a).compare(sortKey(for: b))
    }

    /// Whether `a` comes strictly before `b`: a strict total order, usable with `sorted(by:)`.
    public func areInIncreasingOrder(_ a: Element, _ b: Element) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// A cursor just after `element`: the next page starts with the first element that sorts
    /// after it, whether or not `element` itself still exists.
    public func cursor(after element: Element) -> PageCursor {
        PageCursor(ordering: orderingFingerprint, key: sortKey(for: element))
    }

    /// Whether `element` belongs after `cursor` (sorts strictly after the cursor's position);
    /// every element is after a `nil` cursor.
    public func isAfter(_ element: Element, cursor: PageCursor?) -> Bool {
        guard let cursor else { return true }
        return sortKey(for: element).compare(cursor.key) == .orderedDescending
    }

    /// Throws `ChatError.invalidArgument(field: "cursor", …)` unless `cursor` was made by an
    /// ordering equal to this one.
    public func validate(_ cursor: PageCursor?) throws {
        guard let cursor, cursor.ordering != orderingFingerprint else { return }
        throw ChatError.invalidArgument(
            field: "cursor", reason: "the cursor belongs to another query or sort order")
    }

    /// The page of at most `limit` elements of `candidates` that follow `cursor`, in order.
    ///
    /// Keyset pagination: the page is defined by sort position, not by offset, so walking page
    /// by page visits every element that stays in the set exactly once, even while others are
    /// inserted or removed between pages. The candidates must already satisfy any filter.
    ///
    /// - Throws: `ChatError.invalidArgument` for a foreign cursor or a `limit` below 1.
    /// - Complexity: O(n log n) for n candidates.
    public func page(of candidates: some Sequence<Element>, after cursor: PageCursor?, limit: Int)
        throws -> Page<Element>
    {
        try validate(cursor)
        guard limit >= 1 else {
            throw ChatError.invalidArgument(field: "pageSize", reason: "must be at least 1")
        }
        let keyed = candidates.map { (key: sortKey(for: $0), element: $0) }
            .filter { item in cursor.map { item.key.compare($0.key) == .orderedDescending } ?? true
            }
            .sorted { $0.key < $1.key }
        let items = keyed.prefix(limit)
        return Page(
            items: items.map(\.element),
            next: items.last.map { PageCursor(ordering: orderingFingerprint, key: $0.key) }
                ?? cursor,
            hasNext: keyed.count > limit)
    }
}
