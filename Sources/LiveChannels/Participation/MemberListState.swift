import ChatAPI
import LiveCore

/// The state machine of one live member list: the members of a ``MemberListQuery``'s loaded
/// window, kept in query order and maintained one member at a time. A pure value, mutated by the
/// sync engine; each mutation returns the exact ``CollectionChange`` it made.
///
/// Every filter of a member query (`.all`, `.mute`, `.ban`, roles) is evaluated on the member
/// record itself, so the client decides membership of the list exactly as the server does.
struct MemberListState: Sendable {
    let query: MemberListQuery
    private var window = SortedWindow<ChannelMember>()
    /// The last member of the last page the server returned, as it was then: the next page's
    /// cursor. A prefilled window (from the cache) sets no cursor: the server is still asked for
    /// the first page.
    private var windowEnd: ChannelMember?
    /// Whether a page request is under way (one at a time per list).
    var isLoading = false

    init(query: MemberListQuery) {
        self.query = query
    }

    /// The listed members, in query order.
    var items: [ChannelMember] { window.items }

    /// Whether more members can be loaded after the window.
    var hasNext: Bool { !window.isComplete }

    /// The cursor that asks the server for the page after the window (`nil`: the first page).
    var nextCursor: PageCursor? { windowEnd.map(query.cursor(after:)) }

    /// Applies a changed member record: it enters, leaves, moves or is modified in place.
    /// A record of another channel is ignored.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n) plus O(n) to shift the array.
    mutating func apply(_ member: ChannelMember) -> CollectionChange? {
        guard member.channelId == query.channelId else { return nil }
        return window.apply(member, key: query.sortKey(for: member), matches: query.matches(member))
    }

    /// Records a page the server returned for this query; the caller then rebuilds the items
    /// from the cache with ``rebuild(from:)``. The first page (`isFirst`) replaces a window
    /// prefilled from the cache, which may have been missing members the cache did not know.
    mutating func extendWindow(with page: Page<ChannelMember>, isFirst: Bool) {
        if isFirst { resetWindow() }
        if let last = page.items.last, windowEnd.map({ query.areInIncreasingOrder($0, last) }) ?? true {
            windowEnd = last
        }
        window.extendWindow(to: page.items.last.map(query.sortKey(for:)), hasNext: page.hasNext)
    }

    /// Shows cached members before the server has answered: the first page's worth of them.
    mutating func prefill(from cached: [ChannelMember]) {
        let matching = cached.filter(query.matches).sorted(by: query.areInIncreasingOrder)
        guard let last = matching.prefix(query.pageSize).last else { return }
        window.extendWindow(to: query.sortKey(for: last), hasNext: true)
        rebuild(from: matching)
    }

    /// Forgets the window (for a resync): nothing is loaded until the next page arrives.
    mutating func resetWindow() {
        windowEnd = nil
        window.resetWindow()
    }

    /// Recomputes the items from the cached members of the channel (after the window changed).
    /// - Complexity: O(c log c) for c cached members.
    mutating func rebuild(from cached: [ChannelMember]) {
        window.rebuild(from: cached.filter(query.matches).map { (key: query.sortKey(for: $0), element: $0) })
    }
}
