import ChatAPI
import Foundation

extension ChatClient {
    /// A controller of the channels matching `query` (Stream style). Loads nothing until
    /// `synchronize`.
    @MainActor
    public func channelListController(query: ChannelListQuery) -> ChatChannelListController {
        ChatChannelListController(client: self, query: query, filter: nil)
    }

    /// A controller of the channels matching `query` that `filter` accepts: the block runs on
    /// the main actor over the query's loaded results, on top of the query.
    @MainActor
    public func channelListController(
        query: ChannelListQuery, filter: @escaping (Channel) -> Bool
    ) -> ChatChannelListController {
        ChatChannelListController(client: self, query: query, filter: filter)
    }

    /// A controller of one channel: the channel, its messages, typing users and member events.
    @MainActor
    public func channelController(for channelId: String) -> ChatChannelController {
        ChatChannelController(client: self, channelId: channelId)
    }

    /// A controller of the conversation between the current user and `userIds`: unique by its
    /// member set (the current user included), it is created by the controller's first
    /// `synchronize`, or opened when it exists.
    /// - Parameters:
    ///   - userIds: the other members (the current user is added).
    ///   - name: the conversation's display name (used only when it is created).
    ///   - imageURL: stored as the channel's `avatarFileId` (its absolute string).
    ///   - extraData: the channel's metadata.
    /// - Throws: `ChatError.invalidArgument` (no other user, malformed ids or name),
    ///   `.limitExceeded` (metadata) — checked before anything is sent.
    @MainActor
    public func channelController(
        createDirectMessageChannelWith userIds: Set<String>, name: String? = nil, imageURL: URL? = nil,
        extraData: [String: JSON] = [:]
    ) throws -> ChatChannelController {
        let others = userIds.subtracting([currentUserId]).sorted()
        guard !others.isEmpty else {
            throw ChatError.invalidArgument(field: "userIds", reason: "a direct message needs another user")
        }
        let builder = ConversationChannelBuilder()
        builder.setUserIds(others)
        if let name { builder.setDisplayName(name) }
        if let imageURL { builder.setAvatar(fileId: imageURL.absoluteString) }
        builder.setMetadata(extraData)
        return ChatChannelController(client: self, channelId: nil, directMessageDraft: try builder.makeDraft())
    }

    /// A controller of a channel's members.
    @MainActor
    public func memberListController(query: ChannelMemberListQuery) -> ChatChannelMemberListController {
        ChatChannelMemberListController(client: self, query: query)
    }

    /// A controller of one member of a channel.
    @MainActor
    public func memberController(userId: String, in channelId: String) -> ChatChannelMemberController {
        ChatChannelMemberController(client: self, userId: userId, channelId: channelId)
    }

    /// The signed-in user's controller: their profile and total unread count, live.
    @MainActor
    public func currentUserController() -> CurrentChatUserController {
        CurrentChatUserController(client: self)
    }

    /// A user-search controller (search by any part of the id or display name).
    @MainActor
    public func userSearchController() -> ChatUserSearchController {
        ChatUserSearchController(client: self)
    }
}
