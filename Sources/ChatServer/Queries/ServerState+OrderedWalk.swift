import ChatAPI

extension ServerState {
    /// The page of `query` (sorted by an indexed key: ``ChannelSortIndexes/canWalk(_:)``) after
    /// `cursor`, found by walking the key's index from the cursor in the query's order and
    /// testing each channel until `pageSize + 1` match (the last one only tells that more
    /// follow). Only ids in `candidates` are tested when it is given.
    ///
    /// - Returns: the page, or `nil` when `budget` channels were walked without filling it (the
    ///   caller then tests the candidates instead).
    /// - Complexity: O(log n + w × filter size) for the w ≤ `budget` channels walked.
    func walkedPage(
        _ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, among candidates: Set<String>?, budget: Int
    ) -> Page<Channel>? {
        let viewerDependent = query.dependsOnViewer
        var found: [Channel] = []
        found.reserveCapacity(query.pageSize + 1)
        var walked = 0
        var gaveUp = false
        sortIndexes.forEach(sortedBy: query.sort, after: cursor) { id in
            walked += 1
            if walked > budget {
                gaveUp = true
                return false
            }
            if let candidates, !candidates.contains(id) { return true }
            guard let record = channels[id],
                let value = matchingValue(of: record, for: query, by: caller, viewerDependent: viewerDependent)
            else { return true }
            found.append(value)
            return found.count <= query.pageSize
        }
        if gaveUp { return nil }
        let items = found.prefix(query.pageSize)
        let next = items.last.map { query.cursor(after: $0) } ?? cursor
        let page = viewerDependent ? Array(items) : items.map { render(channels[$0.channelId]!, for: caller.userId) }
        return Page(items: page, next: next, hasNext: found.count > query.pageSize)
    }
}
