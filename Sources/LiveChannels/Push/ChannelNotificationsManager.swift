import ChatAPI

/// The current user's push notifications of one channel, Amity style: on by default, turned
/// off and on again per channel. A member whose notifications of a channel are off gets no push
/// for its messages; a muted channel pushes nothing either.
///
/// ```swift
/// let notifications = ChannelNotificationsManager(client: client, channelId: "ops")
/// try await notifications.disable()
/// let on = try await notifications.isEnabled()   // false
/// ```
///
/// Every call asks the server; each throws `ChatError.notFound` for a channel the user cannot
/// see and `.forbidden` when the user is not a member. Thread-safe; keeps its client alive.
public final class ChannelNotificationsManager: Sendable {
    /// The client it works through.
    public let client: ChatClient
    /// The channel.
    public let channelId: String

    /// The notifications of `channelId` for `client`'s user. Sends nothing.
    public init(client: ChatClient, channelId: String) {
        self.client = client
        self.channelId = channelId
    }

    /// Turns the channel's push notifications on.
    public func enable() async throws {
        try await set(true)
    }

    /// Turns the channel's push notifications off.
    public func disable() async throws {
        try await set(false)
    }

    /// Whether the channel's push notifications are on.
    public func isEnabled() async throws -> Bool {
        try client.sync.checkOpen()
        return try await client.transport.send(.getChannelNotifications(channelId: channelId)).response
            .expected(\.boolValue, answering: "a notification setting")
    }

    /// ``enable()``; `completion` (on the main actor, optional) gets whether it worked and the
    /// error. Sends at once.
    public func enable(completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?) {
        CompletionReporter.run(completion) { [self] in try await enable() }
    }

    /// ``disable()``; `completion` as in ``enable(completion:)``.
    public func disable(completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?) {
        CompletionReporter.run(completion) { [self] in try await disable() }
    }

    /// ``isEnabled()``; `completion` (on the main actor) gets the setting, or the error.
    public func isEnabled(completion: @escaping @MainActor @Sendable (Bool?, (any Error)?) -> Void) {
        Task {
            do {
                let enabled = try await isEnabled()
                await completion(enabled, nil)
            } catch {
                await completion(nil, error)
            }
        }
    }

    private func set(_ enabled: Bool) async throws {
        try client.sync.checkOpen()
        _ = try await client.transport.send(.setChannelNotifications(channelId: channelId, enabled: enabled))
    }
}
