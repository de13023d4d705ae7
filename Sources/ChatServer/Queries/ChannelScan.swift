import ChatAPI
import Foundation

/// A channel query answered in steps: the channels are tested a step at a time, each step in
/// its own hold of the server's lock, so that a query over a million channels does not hold up
/// other requests (``ServerConfiguration/channelsPerScanStep``).
///
/// Between steps the state changes. The last step makes the page exact as of that moment: every
/// channel changed since the scan began (``ChannelChangeLog``) is withdrawn from the selection
/// and judged again on its current value; the selection keeps ``spare`` entries beyond the page
/// to stand in for withdrawn ones. When more were withdrawn than that, or the change log no
/// longer reaches back to the start, ``finish(in:)`` returns `nil` and the caller answers in one
/// hold instead. Channels are never removed, and a channel created meanwhile is in the log.
///
/// - Complexity: O(n × filter size) over all steps for n candidates (every channel when no set
///   index applies), O(step × filter size) per step, plus O(changes + kept) at the end.
struct ChannelScan: Sendable {
    /// Entries kept beyond the page for withdrawn ones.
    static let spare = 64

    let query: ChannelListQuery
    let cursor: PageCursor?
    let caller: Caller
    /// The revision when the scan began: channels changed after it are judged again at the end.
    let startRevision: Int
    private let viewerDependent: Bool
    private var selection: PageSelection<ChannelListQuery>
    /// The candidates, when a set index names them (a copy: the index may change meanwhile).
    private let candidates: Set<String>?
    private var nextCandidate: Set<String>.Index?
    /// Where the walk over every channel (by id) goes on.
    private var resumeAfter: (key: SortValue, id: String)?
    /// Whether every candidate has been tested.
    private(set) var isComplete = false

    init(
        _ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, among candidates: Set<String>?,
        at revision: Int
    ) {
        self.query = query
        self.cursor = cursor
        self.caller = caller
        self.candidates = candidates
        startRevision = revision
        viewerDependent = query.dependsOnViewer
        selection = PageSelection(ordering: query, size: query.pageSize, spare: Self.spare)
    }

    /// Tests up to `limit` more channels against the state as it is now.
    /// - Complexity: O(limit × filter size + log n).
    mutating func step(in state: ServerState, limit: Int) {
        var tested = 0
        if let candidates {
            var index = nextCandidate ?? candidates.startIndex
            while index != candidates.endIndex, tested < limit {
                consider(candidates[index], in: state, into: &selection)
                candidates.formIndex(after: &index)
                tested += 1
            }
            nextCandidate = index
            isComplete = index == candidates.endIndex
        } else {
            guard let byId = state.sortIndexes.index(of: .channelId) else {
                preconditionFailure("the channel-id index is missing")
            }
            var last = resumeAfter
            var selection = selection
            byId.forEach(keysAscending: true, after: resumeAfter) { entry in
                consider(entry.id, in: state, into: &selection)
                last = (entry.key, entry.id)
                tested += 1
                return tested < limit
            }
            self.selection = selection
            resumeAfter = last
            isComplete = tested < limit
        }
    }

    /// The page as of `state`: the channels changed since the scan began judged again. `nil`
    /// when that cannot be made exact (see the type's discussion).
    /// - Complexity: O(changes × filter size + kept).
    func finish(in state: ServerState) -> Page<Channel>? {
        precondition(isComplete, "a scan finishes after its last step")
        guard let changed = state.channelChanges.channels(changedAfter: startRevision) else { return nil }
        var selection = selection
        if !changed.isEmpty {
            selection.remove { changed.contains($0.channelId) }
            for id in changed { consider(id, in: state, into: &selection) }
            guard selection.isExact else { return nil }
        }
        if viewerDependent { return selection.page(after: cursor) }
        return selection.page(after: cursor) { state.render(state.channels[$0.channelId]!, for: caller.userId) }
    }

    private func consider(_ id: String, in state: ServerState, into selection: inout PageSelection<ChannelListQuery>) {
        guard let record = state.channels[id],
            let value = state.matchingValue(of: record, for: query, by: caller, viewerDependent: viewerDependent),
            query.isAfter(value, cursor: cursor)
        else { return }
        selection.offer(value)
    }
}

extension ServerState {
    /// How a channel query is answered by ``ServerEngine``: at once (few candidates, or an
    /// index walk that fills the page within `step × 4` channels — `step × 16` when a set index
    /// names the candidates), or by a ``ChannelScan`` in steps of `step` channels.
    enum ChannelQueryPlan: Sendable {
        case answered(Page<Channel>)
        case scanning(ChannelScan)
    }

    /// Plans `query` (see ``ChannelQueryPlan``).
    ///
    /// - Throws: `invalidArgument` for an invalid query or a cursor of another ordering.
    /// - Complexity: O(candidates) to find the candidates, plus the answer's cost when
    ///   answered at once (at most about `step × 4` channels tested).
    func planChannelQuery(
        _ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, now: Date, step: Int
    ) throws(ChatError) -> ChannelQueryPlan {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let candidates = candidateIds(for: query.filter, viewer: caller.userId)
        if (candidates?.count ?? channels.count) <= step * 4 {
            return .answered(try queryChannels(query, after: cursor, by: caller, now: now))
        }
        // A walk tests only the candidates it meets (a set lookup for the others): with
        // candidates known it may walk further in one hold.
        if sortIndexes.canWalk(query.sort),
            let page = walkedPage(
                query, after: cursor, by: caller, among: candidates, budget: candidates == nil ? step * 4 : step * 16)
        {
            return .answered(page)
        }
        return .scanning(ChannelScan(query, after: cursor, by: caller, among: candidates, at: revision))
    }
}
