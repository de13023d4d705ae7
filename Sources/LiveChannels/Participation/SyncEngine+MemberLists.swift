import ChatAPI
import LiveCore

extension SyncEngine {
    /// Loads the page after `list`'s window, stores its members (every list of the channel sees
    /// them), then shows every cached member up to the new end. One load per list at a time; a
    /// failure is reported as the collection's `error` and leaves the list as it was.
    func loadNextPage(of list: LiveMemberList) async {
        guard let source = list.source else { return }
        let request = list.withState { state -> (MemberListQuery, PageCursor?)? in
            guard state.hasNext, !state.isLoading else { return nil }
            state.isLoading = true
            return (state.query, state.nextCursor)
        }
        guard let (query, cursor) = request else { return }
        defer { list.withState { $0.isLoading = false } }
        source.publish(loadingStatus: .loading)
        do {
            guard let page = try await perform(.queryMembers(query, after: cursor)).memberPageValue else {
                throw ChatError.unavailable("the server answered a member query with something else")
            }
            members.upsert(page.items)
            list.withState { $0.extendWindow(with: page, isFirst: cursor == nil) }
            list.rebuild(from: members.members(in: query.channelId), dataStatus: .fresh, loadingStatus: .loaded)
        } catch {
            let dataStatus: DataStatus = source.collection.dataStatus == .fresh ? .fresh : .error
            source.publish(dataStatus: dataStatus, loadingStatus: .error, error: error)
        }
    }

    /// Reloads every live member list from its first page after a reconnect that could not
    /// resume. The cached records are dropped first: removals missed while disconnected must
    /// not come back.
    func resyncMemberLists() async {
        members.removeAll()
        for list in members.liveLists {
            list.withState { $0.resetWindow() }
            await loadNextPage(of: list)
        }
    }
}
