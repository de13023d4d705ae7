import ChatAPI
import Foundation
import LiveCore

/// What the controller does for the app, each with a completion handler (Stream's style) and
/// an `async` twin: messages, typing, reading, members.
extension ChatChannelController {
    // MARK: Messages

    /// Loads `limit` older messages (appended at the end of ``messages``); `completion` (main
    /// actor) gets `nil` once they are shown, or the error. Synchronizes first if needed.
    public func loadPreviousMessages(limit: Int = 25, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await loadPreviousMessages(limit: limit) }
    }

    /// Loads `limit` older messages; returns once ``messages`` shows them.
    /// - Throws: `ChatError.invalidArgument(field: "limit")`, the server's error.
    public func loadPreviousMessages(limit: Int = 25) async throws {
        try LiveListBinding<Message>.validate(limit: limit)
        if !messageBinding.isStarted { try await synchronize() }
        await messageBinding.settled()
        await messageBinding.load(limit: limit)
        if let error = messageBinding.loadError { throw error }
    }

    /// Creates a text message through the outbox (`MessageRepository.createMessage`): online or
    /// offline, `completion` (main actor) gets its id once it is saved on the device and
    /// ``messages`` shows it (``MessageSyncState/syncing``), or the error of a bad argument. The
    /// client sends it when connected, in creation order; it becomes ``MessageSyncState/synced``
    /// in place, or ``MessageSyncState/failed(_:)`` for a rule the server enforces (then
    /// ``resendMessage(messageId:)``). Creating ends the current user's typing indicator here
    /// (the server ends it when the message arrives).
    public func createNewMessage(
        text: String, mentionedUserIds: [String] = [], extraData: [String: JSON] = [:],
        completion: (@MainActor (Result<String, any Error>) -> Void)? = nil
    ) {
        Task { @MainActor in
            do {
                let channelId = try requireChannelId()
                typingStartedAt = nil
                let message = try MessageRepository(client: client).createMessage(
                    channelId: channelId, text: text, mentionedUserIds: mentionedUserIds, metadata: extraData)
                if messageBinding.isStarted { await messageBinding.settled() }
                completion?(.success(message.messageId))
            } catch {
                completion?(.failure(error))
            }
        }
    }

    /// Sends a ``MessageSyncState/failed(_:)`` message of the outbox again (Stream's
    /// `resendMessage`): it is ``MessageSyncState/syncing`` when this returns and is sent in its
    /// turn.
    /// - Throws: `ChatError.notFound` when the outbox has no such message of this channel.
    public func resendMessage(messageId: String) async throws {
        let channelId = try requireChannelId()
        try await MessageRepository(client: client).resendMessage(channelId: channelId, messageId: messageId)
    }

    /// The async form of ``createNewMessage(text:mentionedUserIds:extraData:completion:)``
    /// (named apart, so that a call without a completion stays fire-and-forget in async code):
    /// sends a text message and returns its id once ``messages`` shows it (when the controller
    /// follows its messages). Sending ends the current user's typing indicator.
    /// - Throws: `ChatError` (`.forbidden` for a non-member, `.invalidArgument` for a bad
    ///   text, `.notFound` for a direct-message controller not synchronized yet, ...).
    @discardableResult
    public func sendMessage(
        text: String, mentionedUserIds: [String] = [], extraData: [String: JSON] = [:]
    ) async throws -> String {
        let channelId = try requireChannelId()
        typingStartedAt = nil
        let message = try await MessageRepository(client: client).sendMessage(
            channelId: channelId, text: text, mentionedUserIds: mentionedUserIds, metadata: extraData)
        if messageBinding.isStarted { await messageBinding.settled() }
        return message.messageId
    }

    // MARK: Typing

    /// Tells the channel the current user is typing. Call it on every keystroke: the indicator
    /// is started on the first and renewed at most every ``typingRenewalInterval``; it ends
    /// with ``stopTyping(_:)``, a sent message, or the server's expiry. `completion` (main
    /// actor) gets `nil` or the error (`.forbidden` for a non-member).
    public func keystroke(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        guard let request = typingRequest(keystroke: true) else {
            completion?(nil)
            return
        }
        report(to: completion) { try await request.value }
    }

    /// The async form of ``keystroke(_:)`` (named apart, so that `keystroke()` stays
    /// fire-and-forget in async code): returns once the server has the indicator (at once when
    /// no request was needed: a renewal within ``typingRenewalInterval``).
    /// - Throws: `ChatError` (`.forbidden` for a non-member, ...).
    public func sendKeystroke() async throws {
        try await typingRequest(keystroke: true)?.value
    }

    /// Ends the current user's typing indicator (if this controller started one).
    public func stopTyping(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        guard let request = typingRequest(keystroke: false) else {
            completion?(nil)
            return
        }
        report(to: completion) { try await request.value }
    }

    /// The async form of ``stopTyping(_:)``: returns once the server has ended the indicator.
    public func sendStopTyping() async throws {
        try await typingRequest(keystroke: false)?.value
    }

    /// The typing request a keystroke (or a stop) needs, sent after the previous ones (so a
    /// stop never overtakes its start); `nil` when none is needed.
    func typingRequest(keystroke: Bool) -> Task<Void, any Error>? {
        if keystroke {
            let now = now()
            if let started = typingStartedAt, now - started < typingRenewalInterval { return nil }
            typingStartedAt = now
        } else {
            guard typingStartedAt != nil else { return nil }
            typingStartedAt = nil
        }
        return typingRequests.submit { @MainActor [self] in
            do {
                let channelId = try requireChannelId()
                let messages = MessageRepository(client: client)
                if keystroke {
                    try await messages.startTyping(channelId: channelId)
                } else {
                    try await messages.stopTyping(channelId: channelId)
                }
            } catch {
                if keystroke { typingStartedAt = nil }
                throw error
            }
        }
    }

    // MARK: Reading and members

    /// Marks the channel read: the current user's read marker moves to the newest message
    /// (unread count 0). `completion` (main actor) gets `nil` once every handle shows it.
    public func markRead(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await markAsRead() }
    }

    /// The async form of ``markRead(_:)`` (named apart, so that `markRead()` stays
    /// fire-and-forget in async code): returns once every handle shows the marker moved.
    public func markAsRead() async throws {
        let participation = ChannelParticipation(client: client, channelId: try requireChannelId())
        try await participation.startReading()
        try await participation.stopReading()
    }

    /// Adds users as members (members already are skipped); each arrives as a
    /// `MemberEvent.added`. `completion` (main actor) gets `nil` or the error (`.notAllowed` in
    /// conversations, `.forbidden` without permission).
    public func addMembers(userIds: Set<String>, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await addMembers(userIds.sorted()) }
    }

    /// The async form of ``addMembers(userIds:completion:)``: returns once every handle shows
    /// the new members.
    public func addMembers(_ userIds: [String]) async throws {
        try await ChannelParticipation(client: client, channelId: try requireChannelId()).addMembers(userIds)
    }

    /// Removes members (non-members are skipped); each leaves as a `MemberEvent.removed`.
    public func removeMembers(userIds: Set<String>, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await removeMembers(userIds.sorted()) }
    }

    /// The async form of ``removeMembers(userIds:completion:)``: returns once every handle
    /// shows them gone.
    public func removeMembers(_ userIds: [String]) async throws {
        try await ChannelParticipation(client: client, channelId: try requireChannelId()).removeMembers(userIds)
    }

    func requireChannelId() throws -> String {
        guard let channelId else {
            throw ChatError.notFound("the direct-message channel: synchronize() creates it first")
        }
        return channelId
    }
}
