/// A live list with the means to load its next page of a chosen size and wait for it: what a
/// controller shows and pages (Stream's `loadNextChannels(limit:)`).
///
/// Repositories make them (``ChannelRepository``, ``MessageRepository``,
/// ``ChannelParticipation``, ``UserRepository``), so that controllers sit on live handles and
/// never reach the client's caches. Nothing loads until ``loadPage`` is called.
struct PagedLiveList<Item: Identifiable & Equatable & Sendable>: Sendable {
    /// The live list.
    let collection: LiveCollection<Item>
    /// Loads the next page — `limit` items, or the list's page size for `nil` — and returns once
    /// the collection's source shows it (or its failure). `nil` for a list that failed at once
    /// (an invalid query: the collection reports the error).
    let loadPage: (@Sendable (_ limit: Int?) async -> Void)?
}

extension LiveQuery {
    /// A list of `spec`'s results that loads nothing until its ``PagedLiveList/loadPage`` is
    /// called (see ``start(client:spec:pageSize:cache:)``).
    static func paged(client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>) -> PagedLiveList<
        Entity
    > {
        let (collection, query) = start(client: client, spec: spec, pageSize: pageSize, cache: cache)
        var loadPage: (@Sendable (Int?) async -> Void)?
        if let query {
            loadPage = { limit in await query.loadPage(limit: limit) }
        }
        return PagedLiveList(collection: collection, loadPage: loadPage)
    }
}
