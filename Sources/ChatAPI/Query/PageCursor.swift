/// An opaque position in an ordered list, for keyset pagination: "the page after this cursor"
/// is the elements that sort strictly after the position, which stays well defined while the
/// list changes (the element it was made from may move or disappear).
///
/// Make one with `cursor(after:)` of a `PageOrdering` (such as a `ChannelListQuery`), or take
/// `Page.next`. It encodes the sort values of that element and the ordering it belongs to;
/// using it with another ordering is rejected with `ChatError.invalidArgument(field: "cursor")`.
public struct PageCursor: Sendable, Hashable, Codable {
    let ordering: String
    /// The position: the sort key of the element the cursor was made after.
    package let key: SortKey
}
