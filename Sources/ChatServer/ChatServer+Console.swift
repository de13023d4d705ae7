import ChatAPI
import Foundation

/// The console: trusted server-side calls. They bypass permissions (not the rules of channel
/// types) and produce the same events as requests do.
extension ChatServer {
    /// Registers a user, or updates an existing user's display name and admin flag.
    ///
    /// - Throws: `invalidArgument` (`userId`, `displayName`).
    @discardableResult
    public func registerUser(id: String, displayName: String? = nil, isAdmin: Bool = false) async throws -> User {
        guard
            case .user(let user) = try await engine.console(
                .registerUser(id: id, displayName: displayName, isAdmin: isAdmin))
        else { throw Self.lostOutcome }
        return user
    }

    /// Creates a channel of any type, registering the users it names if unknown. Nobody is
    /// the creator, so nobody becomes a moderator. A conversation with an existing member set
    /// returns the existing channel.
    ///
    /// - Returns: the channel as the console sees it (no viewer fields).
    /// - Throws: `alreadyExists`; `invalidArgument`; `limitExceeded`.
    @discardableResult
    public func createChannel(
        type: ChannelType, channelId: String? = nil, displayName: String? = nil, userIds: [String] = [],
        tags: [String] = [], metadata: [String: JSON] = [:]
    ) async throws -> Channel {
        let draft = ChannelDraft(
            type: type, channelId: channelId, userIds: userIds, displayName: displayName, tags: tags, metadata: metadata
        )
        guard case .channel(let channel) = try await engine.console(.createChannel(draft)) else {
            throw Self.lostOutcome
        }
        return channel
    }

    /// Changes a channel's own fields.
    ///
    /// - Throws: `notFound`; `notAllowed` (deleted); `invalidArgument`; `limitExceeded`.
    @discardableResult
    public func updateChannel(_ changes: ChannelChanges) async throws -> Channel {
        guard case .channel(let channel) = try await engine.console(.updateChannel(changes)) else {
            throw Self.lostOutcome
        }
        return channel
    }

    /// Adds members to a channel (conversations refuse).
    ///
    /// - Throws: `notFound`; `notAllowed`; `forbidden` (banned user); `invalidArgument`; `limitExceeded`.
    public func addMembers(_ userIds: [String], to channelId: String) async throws {
        _ = try await engine.console(.addMembers(userIds, channelId: channelId))
    }

    /// Sends a message as `userId`, with that user's permissions (an admin can broadcast).
    ///
    /// - Throws: as a `sendMessage` request of that user.
    @discardableResult
    public func sendMessage(
        as userId: String, channelId: String, text: String, mentionedUserIds: [String] = []
    ) async throws -> Message {
        let draft = MessageDraft(channelId: channelId, text: text, mentionedUserIds: mentionedUserIds)
        guard case .message(let message) = try await engine.console(.sendMessage(userId: userId, draft)) else {
            throw Self.lostOutcome
        }
        return message
    }

    /// Deletes a channel: it stays queryable with `isDeleted`, refuses every change, and
    /// members are told.
    ///
    /// - Throws: `notFound`; `notAllowed` (already deleted).
    public func deleteChannel(_ channelId: String) async throws {
        _ = try await engine.console(.deleteChannel(channelId))
    }

    // MARK: Moderation

    /// Removes members from a channel (conversations refuse).
    ///
    /// - Throws: `notFound`; `notAllowed` (a conversation); `invalidArgument`.
    public func removeMembers(_ userIds: [String], from channelId: String) async throws {
        _ = try await engine.console(.moderate(.removeMembers(channelId: channelId, userIds: userIds)))
    }

    /// Bans users from a channel: they stop being members and cannot rejoin until unbanned.
    ///
    /// - Throws: `notFound`; `notAllowed` (a conversation); `invalidArgument`.
    public func banMembers(_ userIds: [String], in channelId: String) async throws {
        _ = try await engine.console(.moderate(.banMembers(channelId: channelId, userIds: userIds)))
    }

    /// Lifts bans (the users do not become members again).
    ///
    /// - Throws: `notFound`; `invalidArgument`.
    public func unbanMembers(_ userIds: [String], in channelId: String) async throws {
        _ = try await engine.console(.moderate(.unbanMembers(channelId: channelId, userIds: userIds)))
    }

    /// Mutes members for `period` seconds (`-1`: until unmuted), or unmutes them (`nil`).
    ///
    /// - Throws: `notFound`; `notAllowed`; `invalidArgument` (`period`).
    public func muteMembers(_ userIds: [String], in channelId: String, for period: Double?) async throws {
        let request: ChatRequest =
            period.map { .muteMembers(channelId: channelId, userIds: userIds, period: $0) }
            ?? .unmuteMembers(channelId: channelId, userIds: userIds)
        _ = try await engine.console(.moderate(request))
    }

    /// Deletes a message (it keeps its sequence number; members are told).
    ///
    /// - Returns: the deleted message.
    /// - Throws: `notFound`; `notAllowed` (a deleted channel).
    @discardableResult
    public func deleteMessage(_ messageId: String, in channelId: String) async throws -> Message {
        guard
            case .message(let message) = try await engine.console(
                .moderate(.deleteMessage(channelId: channelId, messageId: messageId)))
        else { throw Self.lostOutcome }
        return message
    }

    /// Clears every flag of `subject` (a message, or a member) in a channel: a report resolved —
    /// dismissed, or dealt with by a deletion or a ban.
    ///
    /// - Throws: `notFound` (the channel, or no such flag); `invalidArgument` (ids).
    public func dismissFlags(of subject: FlagReport.Subject, in channelId: String) async throws {
        _ = try await engine.console(.dismissFlags(channelId: channelId, subject))
    }

    /// Ends a device's connection, on whichever node of a cluster holds it: the client is told
    /// its connection was lost (`forbidden`; over the wire, close 1011), and the device counts
    /// as gone everywhere (presence, reading). It may connect again.
    ///
    /// - Throws: `notFound` when the device is not connected.
    public func disconnect(userId: String, deviceId: String) async throws {
        _ = try await engine.console(.disconnect(userId: userId, deviceId: deviceId))
    }

    /// A channel's content filters (blocked words, allowed link domains), as its moderators see
    /// them.
    ///
    /// - Throws: `notFound` (the channel); `notAllowed` for a conversation (it has none).
    public func moderationSettings(of channelId: String) throws(ChatError) -> ModerationSettings {
        try engine.read { state, now in
            Result { () throws(ChatError) in try state.moderationSettings(of: channelId, by: .console, now: now) }
        }.get()
    }

    /// Replaces a channel's content filters as its moderators can (words trimmed, domains
    /// lowercased); they apply to messages sent or edited from then on, on every node of a
    /// cluster. Returns them as stored.
    ///
    /// - Throws: `notFound`; `notAllowed` (conversation); `invalidArgument` naming the field
    ///   (`blockedWords`, `allowedURLDomains`).
    @discardableResult
    public func setModerationSettings(_ settings: ModerationSettings, of channelId: String) async throws
        -> ModerationSettings
    {
        _ = try await engine.console(.moderate(.setModerationSettings(channelId: channelId, settings)))
        try await awaitCommitted()
        return try moderationSettings(of: channelId)
    }

    /// Bans `userId` from the whole service: every connection of theirs ends at once, on
    /// whichever node of a cluster holds it (the client is told its connection was lost,
    /// `forbidden`; over the wire, close 1011), and every connect of theirs is refused with
    /// `forbidden` (over the wire, HTTP 403 at the upgrade) until ``unbanUser(_:)``. The ban is
    /// stored with the user, so it outlives a restart. Banning a banned user changes nothing.
    ///
    /// - Throws: `notFound` for an unknown user.
    public func banUser(_ userId: String) async throws {
        _ = try await engine.console(.banUser(userId: userId, banned: true))
    }

    /// Lifts a ban from the service (``banUser(_:)``): the user may connect again. Lifting no
    /// ban changes nothing.
    ///
    /// - Throws: `notFound` for an unknown user.
    public func unbanUser(_ userId: String) async throws {
        _ = try await engine.console(.banUser(userId: userId, banned: false))
    }

    /// When `userId` was banned from the service, or `nil` when they are not banned.
    ///
    /// - Complexity: O(1).
    public func serviceBan(of userId: String) -> Date? {
        engine.read { state, _ in state.serviceBans[userId] }
    }

    /// What a node of a service counts (``serviceSummary()``).
    public struct ServiceSummary: Sendable, Hashable, Codable {
        /// A node of a cluster and its devices connected.
        public struct Node: Sendable, Hashable, Codable {
            public var nodeId: String
            public var connectedDevices: Int
            /// The log position the node had applied at its last beat (`nil`: not live, or not
            /// heard of yet).
            public var appliedPosition: Int?
            public init(nodeId: String, connectedDevices: Int, appliedPosition: Int? = nil) {
                self.nodeId = nodeId
                self.connectedDevices = connectedDevices
                self.appliedPosition = appliedPosition
            }
        }
        /// This node's id (`nil` on a single server).
        public var nodeId: String?
        public var epoch: String
        public var users: Int
        public var channels: Int
        /// Devices connected: to the service (every node of a cluster).
        public var connectedDevices: Int
        /// On a cluster, each live node (heard of within the log's silent limit at this node's
        /// last beat, this node always) and each node with devices connected, with its count, by
        /// id; empty on a single server.
        public var nodes: [Node]
        /// How far this node is behind the cluster's log, in seconds (0 on a single server).
        public var lagSeconds: Double
        /// The last log position this node applied (`nil` on a single server).
        public var appliedPosition: Int?
        /// The entries the cluster's log keeps, as of this node's last beat (`nil` on a single
        /// server).
        public var logEntries: Int?
        /// Transactions this node committed to its database.
        public var databaseCommits: Int
        /// Messages sent in the service since it began (every node of a cluster).
        public var messagesSent: Int
        /// Why this node stopped serving, if it did.
        public var stoppedBecause: String?
    }

    /// What this server counts now: users, channels, devices connected (on a cluster, per node),
    /// and its storage's and log's figures.
    ///
    /// - Complexity: O(connections of the service).
    public func serviceSummary() -> ServiceSummary {
        let live = engine.replica?.liveNodes ?? [:]
        let ownApplied = engine.replica?.appliedPosition
        let (users, channels, connected, nodes, messages) = engine.core.withLock {
            core -> (Int, Int, Int, [ServiceSummary.Node], Int) in
            var nodes: [ServiceSummary.Node] = []
            let table = core.applied.connections
            if let ownApplied {
                // A cluster's nodes: those alive at the last beat, this one, and any with devices.
                var byNode: [String: Int] = [:]
                for node in Array(live.keys) + [core.applied.nodeId] { byNode[node] = 0 }
                for connection in table.byDevice.values { byNode[connection.node, default: 0] += 1 }
                nodes = byNode.keys.sorted().map {
                    ServiceSummary.Node(
                        nodeId: $0, connectedDevices: byNode[$0]!,
                        appliedPosition: $0 == core.applied.nodeId ? ownApplied : live[$0])
                }
            }
            let connected = table.byDevice.count
            return (
                core.state.users.entries.count, core.state.channels.entries.count, connected, nodes,
                core.state.messagesSent
            )
        }
        return ServiceSummary(
            nodeId: nodeId, epoch: epoch, users: users, channels: channels, connectedDevices: connected, nodes: nodes,
            lagSeconds: clusterLag, appliedPosition: ownApplied, logEntries: clusterLogEntries,
            databaseCommits: databaseCommits,
            messagesSent: messages, stoppedBecause: haltReason)
    }

    private static let lostOutcome = ChatError.unavailable("the server lost the outcome of a console call")
}
