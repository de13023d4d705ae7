/// One page of a keyset-paginated list.
public struct Page<Element: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The elements, in the list's order.
    public var items: [Element]
    /// The cursor after the last item (after the request's cursor for an empty page); pass it to
    /// get the following page, also later when `hasNext` was false and the list may have grown.
    public var next: PageCursor?
    /// Whether more elements followed when the page was made.
    public var hasNext: Bool

    /// A page; `items` must be in the list's order.
    public init(items: [Element], next: PageCursor?, hasNext: Bool) {
        self.items = items
        self.next = next
        self.hasNext = hasNext
    }
}
