import ChatAPI

extension ServerState {
    /// The page of `query` (sorted first by an indexed key: ``ChannelSortIndexes/canWalk(_:)``)
    /// after `cursor`, found by walking the key's index from the cursor in the query's order and
    /// testing each channel until `pageSize + 1` match (the last one only tells that more
    /// follow). Only ids in `candidates` are tested when it is given. A sort of several criteria
    /// walks the first one's index run by run of equal values: the matches go through a
    /// ``PageSelection`` in the full order, and the walk stops at the end of the run where the
    /// page filled (every later run sorts after it).
    ///
    /// - Returns: the page, or `nil` when `budget` channels were walked without filling it (the
    ///   caller then tests the candidates instead).
    /// - Complexity: O(log n + w × filter size) for the w ≤ `budget` channels walked, plus
    ///   O(log pageSize) per match for several criteria.
    func walkedPage(
        _ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, among candidates: Set<String>?,
        budget: Int
    ) -> Page<Channel>? {
        let viewerDependent = query.dependsOnViewer
        let byRuns = query.sort.count > 1
        var found: [Channel] = []
        found.reserveCapacity(query.pageSize + 1)
        // For several criteria: the first matches in the full order, and the run walked.
        var selection = PageSelection(ordering: query, size: query.pageSize)
        var runValue: SortValue?
        var walked = 0
        var gaveUp = false
        sortIndexes.forEach(sortedBy: query.sort, after: cursor) { firstValue, id in
            walked += 1
            if byRuns, firstValue != runValue {
                // A new run sorts after everything selected: a full page is final.
                if selection.isOverfull { return false }
                runValue = firstValue
            }
            if walked > budget {
                gaveUp = true
                return false
            }
            if let candidates, !candidates.contains(id) { return true }
            guard let record = channels[id],
                let value = matchingValue(of: record, for: query, by: caller, viewerDependent: viewerDependent)
            else { return true }
            if byRuns {
                // The cursor's own run comes whole: only what sorts after the cursor counts.
                if query.isAfter(value, cursor: cursor) { selection.offer(value) }
                return true
            }
            found.append(value)
            return found.count <= query.pageSize
        }
        if gaveUp { return nil }
        let finish: (Channel) -> Channel = {
            viewerDependent ? $0 : self.render(self.channels[$0.channelId]!, for: caller.userId)
        }
        if byRuns { return selection.page(after: cursor, finish: finish) }
        let items = found.prefix(query.pageSize)
        let next = items.last.map { query.cursor(after: $0) } ?? cursor
        return Page(items: items.map(finish), next: next, hasNext: found.count > query.pageSize)
    }
}
