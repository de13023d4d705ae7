import ChatAPI
import Foundation

/// What the console reads: the state as the server holds it, without a connection.
extension ChatServer {
    /// The channel as `userId` sees it (as the console, with no viewer fields, when `nil`);
    /// `nil` if it does not exist or the user cannot see it.
    public func channel(_ channelId: String, as userId: String? = nil) -> Channel? {
        engine.read { state, now in
            let caller: Caller = userId.map { .user($0) } ?? .console
            return try? state.getChannel(channelId, by: caller, now: now)
        }
    }

    /// The user's unread count in the channel as the server computes it: messages after their
    /// read marker; 0 for non-members and deleted channels.
    public func unreadCount(userId: String, channelId: String) -> Int {
        engine.read { state, _ in state.unreadCount(userId: userId, channelId: channelId) }
    }

    /// The sum of the user's unread counts over the channels they are a member of.
    public func totalUnreadCount(userId: String) -> Int {
        engine.read { state, _ in state.totalUnreadCount(userId: userId) }
    }

    /// The messages a channel keeps (``ServerConfiguration/messagesPerChannel``, the newest) in
    /// sequence order, deleted ones included.
    public func messages(channelId: String) -> [Message] {
        engine.read { state, _ in state.channels[channelId]?.messages.elements ?? [] }
    }

    /// The channel's members and banned users, by user id.
    public func members(channelId: String) -> [ChannelMember] {
        engine.read { state, now in
            guard let channel = state.channels[channelId] else { return [] }
            return (channel.members.keys.sorted() + channel.bans.keys.sorted()).compactMap {
                state.renderMember($0, in: channel, now: now)
            }
        }
    }

    /// The users typing in the channel now, sorted.
    public func typingUsers(channelId: String) -> [String] {
        engine.read { state, now in state.typingUsers(in: channelId, now: now) }
    }

    /// The registered user, if any.
    public func user(_ userId: String) -> User? {
        engine.read { state, _ in state.users[userId] }
    }

    /// A device of a user, as the server knows it: each device that ever connected has an event
    /// stream (``ChatServer/lastEventSequence(userId:deviceId:)``).
    public struct DeviceSummary: Sendable, Hashable, Codable {
        public var deviceId: String
        /// Whether it is connected now: to this server, or on a cluster to any node.
        public var isConnected: Bool
        /// The number of the newest event of its stream.
        public var lastSequence: Int
        public init(deviceId: String, isConnected: Bool, lastSequence: Int) {
            self.deviceId = deviceId
            self.isConnected = isConnected
            self.lastSequence = lastSequence
        }
    }

    /// The user's devices, by device id.
    ///
    /// - Complexity: O(devices of the user).
    public func devices(userId: String) -> [DeviceSummary] {
        engine.core.withLock { core in
            core.hub.devices(of: userId).map { device in
                DeviceSummary(
                    deviceId: device.deviceId, isConnected: core.isConnected(device),
                    lastSequence: core.hub.lastSequence(of: device))
            }
        }.sorted { $0.deviceId < $1.deviceId }
    }

    /// The users whose id or display name contains `text` (ignoring case), by id; at most
    /// `limit`.
    ///
    /// - Complexity: O(users).
    public func findUsers(matching text: String, limit: Int = 50) -> [User] {
        engine.read { state, _ in
            state.users.entries.values
                .filter { Self.matches($0.userId, $0.displayName, text) }
                .sorted { $0.userId < $1.userId }
                .prefix(max(0, limit)).map { $0 }
        }
    }

    /// The channels whose id or display name contains `text` (ignoring case; any channel when
    /// empty) and that carry `tag` (when given), by id, as the console sees them; at most
    /// `limit`, deleted ones included.
    ///
    /// - Complexity: O(channels), or O(channels with the tag).
    public func findChannels(matching text: String, tag: String? = nil, limit: Int = 50) -> [Channel] {
        engine.read { state, now in
            let candidates = tag.map { Array(state.channelsByTag[$0] ?? []) } ?? Array(state.channels.entries.keys)
            return candidates.sorted()
                .compactMap { id -> Channel? in
                    guard let record = state.channels[id],
                        Self.matches(id, record.info.displayName, text)
                    else { return nil }
                    return try? state.getChannel(id, by: .console, now: now)
                }
                .prefix(max(0, limit)).map { $0 }
        }
    }

    /// Whether `id` or `name` contains `text`, ignoring case (everything matches an empty text).
    private static func matches(_ id: String, _ name: String?, _ text: String) -> Bool {
        text.isEmpty || id.localizedCaseInsensitiveContains(text)
            || (name?.localizedCaseInsensitiveContains(text) ?? false)
    }

    /// What members flagged in a channel, with the channel (``flagReports()``).
    public struct ChannelFlagReport: Sendable, Hashable, Codable {
        public var channelId: String
        /// What was flagged.
        public var subject: FlagReport.Subject
        /// The users who flagged it, sorted.
        public var flaggedBy: [String]
        /// The flagged message as it is now (a flagged member: `nil`), however old: the queue
        /// shows its text and sender without reading the channel's newest messages.
        public var message: Message?
        public init(channelId: String, subject: FlagReport.Subject, flaggedBy: [String], message: Message? = nil) {
            self.channelId = channelId
            self.subject = subject
            self.flaggedBy = flaggedBy
            self.message = message
        }
    }

    /// Every flag report of every channel (messages, then members, per channel; channels by id),
    /// each flagged message with it: what a moderation queue shows, in one read.
    ///
    /// - Complexity: O(channels + reports).
    public func flagReports() -> [ChannelFlagReport] {
        engine.read { state, now in
            state.channels.entries.keys.sorted().flatMap { channelId -> [ChannelFlagReport] in
                guard let record = state.channels[channelId],
                    !record.messageFlags.isEmpty || !record.userFlags.isEmpty,
                    let reports = try? state.flagReports(in: channelId, by: .console, now: now)
                else { return [] }
                return reports.map {
                    var message: Message?
                    if case .message(let messageId) = $0.subject, let location = state.messageLocations[messageId] {
                        message = record.messages[sequence: location.sequence]
                    }
                    return ChannelFlagReport(
                        channelId: channelId, subject: $0.subject, flaggedBy: $0.flaggedBy, message: message)
                }
            }
        }
    }

    /// The ids of the channels the user is a member of, sorted (deleted ones included).
    public func channelIds(memberOf userId: String) -> [String] {
        engine.read { state, _ in (state.memberships[userId] ?? []).sorted() }
    }

    /// Returns once this server has applied every change acknowledged anywhere before the call:
    /// on a node of a cluster, a read barrier (the inspection calls after it see every change
    /// any node answered before it); on a single server, at once.
    ///
    /// - Throws: `unavailable` when the cluster's log cannot be read.
    public func awaitCommitted() async throws(ChatError) {
        try await engine.log.awaitCommitted()
    }

    /// ``awaitCommitted()``, by its earlier name ("catch up" now names only a node applying the
    /// log when it starts).
    @available(*, deprecated, renamed: "awaitCommitted()")
    public func catchUp() async throws(ChatError) {
        try await awaitCommitted()
    }

    /// The sequence number of the newest event of the device's stream (0 if none).
    public func lastEventSequence(userId: String, deviceId: String = ChatServer.defaultDeviceId) -> Int {
        engine.core.withLock {
            $0.hub.lastSequence(of: ServerState.DeviceKey(userId: userId, deviceId: deviceId))
        }
    }
}
