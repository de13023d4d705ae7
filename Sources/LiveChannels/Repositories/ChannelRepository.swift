import ChatAPI
import Foundation
import LiveCore

/// Channel management, Amity style: create, join, get, leave, query and update channels.
///
/// Calls that return a live handle (`getChannel`, `joinChannel`, `createChannel().…(with:)`,
/// `getChannels()…query()`) return at once and send their request immediately; discarding the
/// handle does not cancel the request. A failure is reported as the handle's `error` (with
/// `dataStatus == .error` when there is nothing to show). Their `async throws` counterparts have
/// their own names and throw `ChatError`.
///
/// A write made through an `async` call is visible in every live handle by the time the call
/// returns. Thread-safe; keeps its client alive.
public final class ChannelRepository: Sendable {
    /// The client this repository works through.
    public let client: ChatClient

    /// A repository for the channels `client` sees; it keeps the client alive.
    public init(client: ChatClient) {
        self.client = client
    }

    // MARK: Create

    /// The Amity-style creation entry point: `repository.createChannel().community(with: builder)`.
    public func createChannel() -> ChannelCreator {
        ChannelCreator(client: client)
    }

    /// Creates a conversation (or returns the existing one with the same members), as a live
    /// object. Same as `createChannel().conversation(with:)`.
    public func createConversation(with builder: ConversationChannelBuilder) -> LiveObject<Channel> {
        createChannel().conversation(with: builder)
    }

    /// Creates a channel from any builder and returns it once the server has created it.
    /// - Throws: `ChatError.invalidArgument` for bad builder input (nothing is sent),
    ///   `.alreadyExists` for an id in use, `.notAllowed` for a type clients cannot create.
    public func createChannel(with builder: some ChannelBuilder) async throws -> Channel {
        try await client.channel(answering: .createChannel(try builder.makeDraft()))
    }

    // MARK: Join, get, leave

    /// Joins a channel (idempotent) and returns it as a live object. A conversation cannot be
    /// joined: the object reports `ChatError.notAllowed`.
    public func joinChannel(_ channelId: String) -> LiveObject<Channel> {
        client.liveChannel(channelId, sending: .joinChannel(channelId: channelId))
    }

    /// Joins a channel (idempotent) and returns it.
    /// - Throws: `.notFound`, `.notAllowed` (conversations; banned users), `.limitExceeded`.
    public func joinChannel(channelId: String) async throws -> Channel {
        try await client.channel(answering: .joinChannel(channelId: channelId))
    }

    /// The channel as a live object, without joining it: the cached value at once, then the
    /// server's. A channel the user may not see reports `ChatError.notFound`.
    public func getChannel(_ channelId: String) -> LiveObject<Channel> {
        client.liveChannel(channelId, sending: .getChannel(channelId: channelId))
    }

    /// The channel, fetched from the server, without joining it.
    /// - Throws: `.notFound` when it does not exist or is not visible to this user.
    public func getChannel(channelId: String) async throws -> Channel {
        try await client.channel(answering: .getChannel(channelId: channelId))
    }

    /// Leaves a channel. Live lists filtered on membership drop it before this returns.
    /// - Throws: `.notFound`, `.notAllowed` (conversations).
    public func leaveChannel(_ channelId: String) async throws {
        _ = try await client.sync.perform(.leaveChannel(channelId: channelId))
    }

    /// Leaves a channel; `completion` (on the main actor) gets whether it worked and the error.
    public func leaveChannel(
        _ channelId: String, withCompletion completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?
    ) {
        Task {
            do {
                try await leaveChannel(channelId)
                await completion?(true, nil)
            } catch {
                await completion?(false, error)
            }
        }
    }

    // MARK: Query

    /// The Amity-style query entry point: `repository.getChannels().communityType(with: builder).query()`.
    public func getChannels() -> ChannelQueries {
        ChannelQueries(client: client)
    }

    /// A live list of the channels matching `query`: the first page loads now, `nextPage()`
    /// loads more. Channels enter and leave the list as they start and stop matching, whatever
    /// caused it. An invalid query reports `ChatError.invalidArgument` as the list's `error`.
    public func getChannels(query: ChannelListQuery) -> LiveCollection<Channel> {
        client.liveChannelList(query)
    }

    /// The same live list, loading nothing until its first page is asked for (controllers).
    func pagedChannels(query: ChannelListQuery) -> PagedLiveList<Channel> {
        LiveQuery.paged(
            client: client, spec: ChannelListSpec(query: query), pageSize: query.pageSize, cache: client.sync.channels)
    }

    /// Creates the channel `draft` describes (or opens the conversation it names) and returns
    /// it as cached.
    /// - Throws: the server's `ChatError`.
    func createChannel(_ draft: ChannelDraft) async throws -> Channel {
        try await client.channel(answering: .createChannel(draft))
    }

    // MARK: Unread counts

    /// The number of messages the user has yet to read: the sum of `unreadCount` over every
    /// channel the user is a member of (loaded at connect, then kept current by events).
    /// - Complexity: O(1).
    public var totalUnreadCount: Int { client.sync.unread.total }

    /// ``totalUnreadCount`` as a live value: a derived stream over the user's channels, updated
    /// in O(1) per channel change (never re-summed). Its `loadingStatus` is `.loading` until
    /// every member channel has been loaded.
    public func getTotalUnreadCount() -> LiveObject<Int> {
        client.sync.unread.object.map(retaining: client) { $0 }
    }

    // MARK: Update

    /// Applies an update builder's changes and returns the updated channel.
    /// - Throws: `.invalidArgument` (nothing to update, metadata too deep or not finite),
    ///   `.limitExceeded` (metadata over 100 KB), `.forbidden`, `.notFound`.
    public func updateChannel(with updater: ChannelUpdateBuilder) async throws -> Channel {
        try await client.channel(answering: .updateChannel(try updater.makeChanges()))
    }
}
