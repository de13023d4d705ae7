import ChatAPI
import LiveCore

/// Messages and typing indicators of channels: send, edit and delete messages, observe a
/// channel's messages as a live list, and who is typing.
///
/// A write made through an `async` call is visible in every live message list of its channel by
/// the time the call returns (and the channel's `lastSequence` in channel handles, for a send).
/// Thread-safe, not actor-isolated; keeps its client alive. Every call throws or reports
/// `ChatError`.
public final class MessageRepository: Sendable {
    /// The client this repository works through.
    public let client: ChatClient

    /// A repository for the messages, typing indicators and read state `client` sees.
    public init(client: ChatClient) {
        self.client = client
    }

    // MARK: Send, edit, delete

    /// Sends a text message and returns it as the server stored it (with its `sequence`).
    /// Sending also ends the sender's typing indicator in the channel.
    ///
    /// The message gets its id on the device (``MessageDraft/messageId``), so a send can never
    /// be doubled: when the connection drops after the request left (the server may have stored
    /// it), or the client is reconnecting, the call waits for the reconnect (up to 10 s a time, 3
    /// tries at most) and sends it again with the same id, which the server answers with the
    /// stored message. For a
    /// message that must survive being offline, use ``createMessage(channelId:text:mentionedUserIds:metadata:messageId:)``.
    /// - Parameters:
    ///   - channelId: the channel to send to (the user must be a member).
    ///   - text: the message text, not empty.
    ///   - mentionedUserIds: members to mention; they get the channel's `hasMention` until they
    ///     read it. Duplicates are removed (the returned message lists them sorted).
    ///   - metadata: custom fields.
    /// - Throws: `ChatError.invalidArgument` (empty text, malformed ids), `.limitExceeded`
    ///   (metadata), `.notFound` (channel unknown or invisible), `.notAllowed` (deleted channel),
    ///   `.forbidden` (not a member, a broadcast channel and not an admin, muted member or
    ///   channel), `.rateLimited(retryAfter:)`, `.unavailable` (offline, or still no connection
    ///   after the tries).
    @discardableResult
    public func sendMessage(
        channelId: String, text: String, mentionedUserIds: [String], metadata: [String: JSON] = [:]
    ) async throws -> Message {
        let draft = MessageDraft(
            channelId: channelId, text: text, mentionedUserIds: mentionedUserIds, metadata: metadata,
            messageId: MessageIdRules.make())
        var tries = 1
        while true {
            let made = client.sync.connectionsMade.withLock { $0 }
            let ended = client.sync.endedConnectionCount
            do {
                return try await client.message(answering: .sendMessage(draft))
            } catch ChatError.unavailable(let reason) {
                // Offline from the start, a refusal on a connection that stays, or the user's own
                // disconnect: the error stands. Only a connection lost under the call is waited for.
                guard tries < Self.sendTries, client.sync.currentUser != nil, await connectionDropped(since: ended)
                else { throw ChatError.unavailable(reason) }
                tries += 1
                // A connection made after this try was sent: not the one it failed with.
                await client.sync.waitForConnection(after: made, atMost: Self.reconnectWait)
            }
        }
    }

    /// Whether the connection ended after ``SyncEngine/endedConnectionCount`` read `ended`, or the
    /// client is reconnecting: a connection is on its way back. A send that failed with the
    /// connection may be told before the client hears that the connection ended: it is given a
    /// few turns (at most 50 ms) to.
    private func connectionDropped(since ended: Int) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(50)
        while true {
            switch client.connectionState.snapshot {
            case .disconnected?, nil: return false
            case .reconnecting?: return true
            case .connecting?, .connected?: break
            }
            if client.sync.endedConnectionCount > ended { return true }
            if ContinuousClock.now >= deadline { return false }
            await Task.yield()
        }
    }

    /// How many times ``sendMessage(channelId:text:mentionedUserIds:metadata:)`` sends at most.
    static let sendTries = 3
    /// How long it waits for a reconnect between two tries.
    static let reconnectWait = 10.0

    // MARK: The outbox

    /// Creates a message on the device and returns it at once, online or offline (Amity's
    /// `createMessage`): it is ``MessageSyncState/syncing``, with its id and `sequence` 0, and
    /// every live list of the channel (``getMessages(channelId:pageSize:)``, a channel
    /// controller's `messages`) shows it already, after the newest stored message. The client
    /// sends it when connected — the outbox's messages one at a time, in creation order, always
    /// with this id — and once the server stored it the same row becomes ``MessageSyncState/synced``
    /// with its `sequence`: one modification in place, never a delete and an insert.
    ///
    /// A try that fails for want of a connection (or `unavailable`, `rateLimited`) is made again
    /// by itself (at once after a reconnect, else with a backoff of 0.5 s doubling to 30 s); a
    /// rule failure (`forbidden`, `notFound`, `invalidArgument`, `limitExceeded`, `notAllowed`,
    /// `alreadyExists`) makes it ``MessageSyncState/failed(_:)`` until
    /// ``resendMessage(channelId:messageId:)`` or ``discardMessage(channelId:messageId:)``. With the
    /// `.sqlite` cache the outbox is in the file: after a restart it is shown again and sent
    /// once connected; in memory it lives as long as the client. See "Sending while offline".
    /// - Parameters:
    ///   - channelId: the channel to send to.
    ///   - text: the message text, not empty.
    ///   - mentionedUserIds: members to mention (duplicates removed, sorted).
    ///   - metadata: custom fields.
    ///   - messageId: an id of your own (1–64 of `A–Z a–z 0–9 _ -`), or `nil` for one made here.
    /// - Throws: only what the device can see: `ChatError.invalidArgument` (empty text, a
    ///   malformed channel, mention or message id), `.alreadyExists` (an id the outbox holds),
    ///   `.notAllowed` after `close()`.
    @discardableResult
    public func createMessage(
        channelId: String, text: String, mentionedUserIds: [String] = [], metadata: [String: JSON] = [:],
        messageId: String? = nil
    ) throws -> Message {
        try client.outbox.create(
            MessageDraft(
                channelId: channelId, text: text, mentionedUserIds: mentionedUserIds, metadata: metadata,
                messageId: messageId))
    }

    /// Sends a ``MessageSyncState/failed(_:)`` message of the outbox again: it is
    /// ``MessageSyncState/syncing`` (in place) when this returns, and sent in its turn. A message
    /// still syncing is left as it is.
    /// - Throws: `ChatError.notFound` when the outbox has no such message (not created on this
    ///   device, stored by the server already, or discarded).
    public func resendMessage(channelId: String, messageId: String) async throws {
        try client.outbox.resend(messageId: messageId, channelId: channelId)
    }

    /// Removes a ``MessageSyncState/failed(_:)`` or ``MessageSyncState/syncing`` message from the
    /// outbox: it leaves every live list (and the cache file) when this returns, and is not sent.
    /// A message whose send is under way at that moment may still be stored by the server; it
    /// then shows again, synced.
    /// - Throws: `ChatError.notFound` when the outbox has no such message.
    public func discardMessage(channelId: String, messageId: String) async throws {
        try client.outbox.discard(messageId: messageId, channelId: channelId)
    }

    /// The outbox's messages (``MessageSyncState/syncing`` and ``MessageSyncState/failed(_:)``),
    /// oldest first: what this device has not got stored by the server yet.
    public var unsentMessages: [Message] { client.outbox.messages }

    /// Replaces a message's text, mentions and metadata, and returns the edited message
    /// (`editedAt` set). The sender may edit their own messages; moderators and admins anyone's.
    /// - Throws: `.notFound` (no such message in that channel), `.notAllowed` (a deleted message
    ///   or channel), `.forbidden` (another user's message without moderator rights),
    ///   `.invalidArgument` (empty text), `.limitExceeded`.
    @discardableResult
    public func editMessage(
        channelId: String, messageId: String, text: String, mentionedUserIds: [String] = [],
        metadata: [String: JSON] = [:]
    ) async throws -> Message {
        let draft = MessageDraft(
            channelId: channelId, text: text, mentionedUserIds: mentionedUserIds, metadata: metadata)
        return try await client.message(answering: .editMessage(messageId: messageId, draft: draft))
    }

    /// Deletes a message and returns it as deleted. A deleted message keeps its place (and
    /// sequence number) in the channel with `isDeleted == true` and empty text, mentions and
    /// metadata; live lists show it so, in place.
    /// - Throws: `.notFound`, `.notAllowed` (already deleted), `.forbidden` (another user's
    ///   message without moderator rights).
    @discardableResult
    public func deleteMessage(channelId: String, messageId: String) async throws -> Message {
        try await client.message(answering: .deleteMessage(channelId: channelId, messageId: messageId))
    }

    /// Sends a message without waiting; `completion` (on the main actor, if given) gets the sent
    /// message or the `ChatError`. The request is sent even if nothing keeps the repository.
    public func sendMessage(
        channelId: String, text: String, mentionedUserIds: [String] = [],
        completion: (@MainActor @Sendable (Message?, (any Error)?) -> Void)?
    ) {
        Task {
            do {
                let message = try await sendMessage(
                    channelId: channelId, text: text, mentionedUserIds: mentionedUserIds)
                await completion?(message, nil)
            } catch {
                await completion?(nil, error)
            }
        }
    }

    /// Deletes a message without waiting; `completion` (on the main actor, if given) gets whether
    /// it worked and the `ChatError`.
    public func deleteMessage(
        channelId: String, messageId: String, completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?
    ) {
        Task {
            do {
                try await deleteMessage(channelId: channelId, messageId: messageId)
                await completion?(true, nil)
            } catch {
                await completion?(false, error)
            }
        }
    }

    // MARK: Live list

    /// A channel's messages as a live list, oldest first and newest last (ascending `sequence`),
    /// as a chat screen shows them. It starts with the newest page (`pageSize` messages);
    /// `previousPage()` prepends the page before the first loaded message, and `hasPrevious` is
    /// `true` exactly while the server keeps older messages (a server may keep only each
    /// channel's newest ones: the embedded one keeps `ServerConfiguration.messagesPerChannel`).
    /// New messages append, edits and deletions are
    /// modifications in place (a deleted message stays, `isDeleted` and empty), whoever made them.
    /// Paging backwards while messages arrive leaves no gaps and no duplicates.
    ///
    /// Returns at once (`loadingStatus == .loading`); the first page arrives soon after. Reading a
    /// channel's messages needs membership (admins excepted): otherwise the list reports
    /// `ChatError.forbidden` (or `.notFound`) as its `error`, with `dataStatus == .error`;
    /// `previousPage()` retries the newest page then. A list stops following its channel once
    /// the user is no longer a member (the server no longer sends its events).
    /// - Parameters:
    ///   - channelId: the channel whose messages to list.
    ///   - pageSize: messages per page, 1…`ChannelListQuery.maximumPageSize`; another
    ///     value reports `ChatError.invalidArgument(field: "limit")`.
    public func getMessages(channelId: String, pageSize: Int = 30) -> LiveCollection<Message> {
        LiveQuery.make(
            client: client, spec: MessageListSpec(channelId: channelId, pageSize: pageSize), pageSize: pageSize,
            cache: client.sync.messages)
    }

    /// The same live list, loading nothing until its first page is asked for (controllers).
    func pagedMessages(channelId: String, pageSize: Int) -> PagedLiveList<Message> {
        LiveQuery.paged(
            client: client, spec: MessageListSpec(channelId: channelId, pageSize: pageSize), pageSize: pageSize,
            cache: client.sync.messages)
    }

    // MARK: Typing

    /// The ids of the *other* users typing in a channel right now, as a live value (Stream's
    /// `didChangeTypingUsers`). It changes when someone starts or stops typing, sends a message,
    /// disconnects, or their indicator expires on the server. Only typing that started while
    /// this client was connected is known, so the first value may miss a user who started
    /// earlier. Never fails; a channel the user cannot see simply shows nobody.
    public func getTypingUsers(channelId: String) -> LiveObject<Set<String>> {
        let source = LiveObjectSource<Set<String>>(owner: client)
        let current = client.sync.typing.register(source, channelId: channelId, excluding: client.currentUserId)
        source.publish(snapshot: current, dataStatus: .fresh)
        return source.object
    }

    /// Shows the current user as typing in a channel until ``stopTyping(channelId:)``, a sent
    /// message, or the server's typing expiry (5 s by default) without another call. Call it again
    /// while the user keeps typing to renew it; members are told only when typing starts.
    /// - Throws: `.notFound`, `.notAllowed`, `.forbidden` (not a member).
    public func startTyping(channelId: String) async throws {
        _ = try await client.sync.perform(.startTyping(channelId: channelId))
    }

    /// Ends the current user's typing indicator in a channel. Idempotent.
    /// - Throws: `.notFound` (channel unknown or invisible).
    public func stopTyping(channelId: String) async throws {
        _ = try await client.sync.perform(.stopTyping(channelId: channelId))
    }
}
