import ChatAPI
import Foundation

/// What differs between the live lists of one entity kind — everything else (the window, the
/// cursor, page application, event application, recovery) is ``LiveQuery``'s, once for all.
///
/// A new kind of live list is one conformance: say which cache holds the entities, how they sort,
/// what belongs, how a page is asked for and read. Conformances are small values, `Sendable`,
/// with no state of their own.
protocol LiveQuerySpec: Sendable {
    associatedtype Entity: CachedEntity

    /// Which end pages grow from.
    var growth: WindowGrowth { get }

    /// The channel whose entities this list shows, for lists of one channel (members,
    /// messages); `nil` otherwise.
    var channelScope: String? { get }

    /// A key naming the list in the cache file (its first page is stored under it), or `nil`
    /// for lists not worth remembering. Equal lists, equal keys.
    var storageKey: String? { get }

    /// Throws `ChatError.invalidArgument` for a query the server would refuse (checked before
    /// anything is sent).
    func validate() throws

    /// The entity's position in the list.
    func sortKey(for entity: Entity) -> SortKey

    /// Whether `entity` belongs to the list, as far as the client can tell from the entity
    /// alone and `context`, filter and visibility both. `isConfirmed`: whether the server listed
    /// it for this query, for conditions the client cannot evaluate itself (other users'
    /// memberships); a lookup, so ask only when needed.
    func matches(_ entity: Entity, in context: QueryContext, isConfirmed: () -> Bool) -> Bool

    /// The request for the page after `boundary` (the last element of the last loaded page, in
    /// the direction of growth, as it was then), or the first page when `nil`; of `limit`
    /// elements, or the list's page size when `nil`.
    func pageRequest(after boundary: Entity?, limit: Int?) -> ChatRequest

    /// The page a response carries, elements in ascending key order.
    /// - Throws: `ChatError.unavailable` when the response is of another kind.
    func page(in response: ChatResponse) throws -> QueryPage<Entity>
}

extension LiveQuerySpec {
    var channelScope: String? { nil }

    var storageKey: String? { nil }

    /// `prefix` and the canonical JSON of `query`: equal queries, equal keys.
    static func storageKey(_ prefix: String, _ query: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(query) else { return nil }
        return prefix + ":" + String(decoding: data, as: UTF8.self)
    }
}

/// One page of a live list as the server answered it.
struct QueryPage<Entity: Sendable>: Sendable {
    /// The elements, ascending by the list's sort key.
    var items: [Entity]
    /// Whether more elements lie beyond the page, in the direction of growth.
    var hasMore: Bool
}

/// What the client knows about the viewing user, for matching (visibility depends on it).
struct QueryContext: Sendable {
    var viewerId: String
    var isAdmin: Bool
}
