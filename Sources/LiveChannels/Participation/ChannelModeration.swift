import ChatAPI
import Foundation

/// Moderation of one channel, Amity style: ban, unban, mute and unmute members, give and take
/// roles, rate-limit and mute the channel.
///
/// ```swift
/// let moderation = ChannelModeration(client: client, channelId: "channel1")
/// try await moderation.banMembers(["troll"])
/// try await moderation.muteMembers(["loud"], mutePeriod: 600)
/// ```
///
/// Who may moderate is decided by the server (see `client.hasPermission(_:forChannel:)`):
/// admins everywhere, and members with the `"moderator"` role in community, live, standard and
/// private channels; conversations have no moderation (`ChatError.notAllowed`), broadcast
/// channels are moderated by admins only. Every call throws `.forbidden` without the
/// permission, `.notFound` for a channel the user cannot see, and changes nothing when it throws.
///
/// Moderation cannot be dodged:
/// - A ban, a mute and a rate-limit window belong to the (channel, user) pair, not to a
///   membership: leaving and rejoining (or being removed and re-added) keeps them. A ban ends
///   only by ``unbanMembers(_:)``, a mute by ``unmuteMembers(_:)`` or when its period ends.
/// - Someone can always unban: admins may always moderate, even when banned themselves; and
///   a moderator who is not an admin cannot ban themselves when no other moderator would
///   remain (`ChatError.notAllowed`).
///
/// A change is visible in every live handle (member lists, channel objects and lists) by the
/// time the call returns, and reaches other members' clients through events. Durations are
/// seconds; `-1` means "until undone". Thread-safe; keeps its client alive.
public final class ChannelModeration: Sendable {
    /// The client this moderation works through.
    public let client: ChatClient
    /// The channel.
    public let channelId: String

    /// Moderation of `channelId`. Sends nothing.
    public init(client: ChatClient, channelId: String) {
        self.client = client
        self.channelId = channelId
    }

    /// The seed's spelling: `ChannelModeration(client: client, andChannel: "channel1")`.
    public convenience init(client: ChatClient, andChannel channelId: String) {
        self.init(client: client, channelId: channelId)
    }

    // MARK: Members

    /// Bans users: members stop being members (losing their roles) and nobody banned can join
    /// or be added until unbanned. Non-members may be banned too. A banned user's channel
    /// object shows `currentUserMembership == .banned`. Their mutes stay.
    /// - Returns: the users' records after the change (membership `.banned`).
    /// - Throws: `ChatError.notAllowed` (conversations; the last moderator banning themselves),
    ///   `.forbidden`,
    ///   `.invalidArgument(field: "userIds")`, `.notFound`.
    @discardableResult
    public func banMembers(_ userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .banMembers(channelId: channelId, userIds: userIds))
    }

    /// Lifts bans. The users do not become members again; they may join or be added.
    /// - Returns: the users' records after the change (membership `.none`).
    /// - Throws: as ``banMembers(_:)``.
    @discardableResult
    public func unbanMembers(_ userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .unbanMembers(channelId: channelId, userIds: userIds))
    }

    /// Mutes members for `mutePeriod` seconds (`-1`: until unmuted): they cannot send
    /// meanwhile. The server unmutes them when the period ends. A mute outlives membership:
    /// leaving and rejoining before it ends does not lift it.
    /// - Returns: the members' records after the change (`isMuted == true`).
    /// Moderators and admins send whatever a mute says, so muting one is refused.
    /// - Throws: `ChatError.invalidArgument` (`mutePeriod` → field `"period"`: positive up to ten
    ///   years, or `-1`; `userIds` naming non-members), `.notAllowed` (conversations; a
    ///   moderator or admin among `userIds`), `.forbidden`, `.notFound`.
    @discardableResult
    public func muteMembers(_ userIds: [String], mutePeriod: TimeInterval) async throws -> [ChannelMember] {
        try await client.members(answering: .muteMembers(channelId: channelId, userIds: userIds, period: mutePeriod))
    }

    /// Unmutes members.
    /// - Returns: the members' records after the change.
    /// - Throws: as ``muteMembers(_:mutePeriod:)``.
    @discardableResult
    public func unmuteMembers(_ userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .unmuteMembers(channelId: channelId, userIds: userIds))
    }

    /// Gives members a channel role. `"moderator"` lets them moderate (not in broadcast
    /// channels); other roles are labels for `getMembers(roles:)`.
    /// - Returns: the members' records after the change.
    /// - Throws: `ChatError.invalidArgument` (`role`; `userIds` naming non-members),
    ///   `.notAllowed` (conversations), `.forbidden`, `.notFound`.
    @discardableResult
    public func addRole(_ role: String, userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .addRole(role, channelId: channelId, userIds: userIds))
    }

    /// Takes a channel role away from members.
    /// - Returns: the members' records after the change.
    /// - Throws: as ``addRole(_:userIds:)``.
    @discardableResult
    public func removeRole(_ role: String, userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .removeRole(role, channelId: channelId, userIds: userIds))
    }

    // MARK: Channel

    /// For `period` seconds (`-1`: until removed), each member may send at most `limit`
    /// messages per `window` seconds; more are refused with `ChatError.rateLimited`.
    /// Moderators and admins are exempt.
    /// - Returns: the channel after the change (`isRateLimited`, `rateLimit`).
    /// - Throws: `ChatError.invalidArgument` (`period`, `limit` < 1, `window` not positive),
    ///   `.notAllowed` (conversations), `.forbidden`, `.notFound`.
    @discardableResult
    public func setRateLimit(period: TimeInterval, limit: Int, window: TimeInterval) async throws -> Channel {
        try await client.channel(
            answering: .setRateLimit(channelId: channelId, period: period, limit: limit, window: window))
    }

    /// Removes the rate limit.
    /// - Returns: the channel after the change.
    /// - Throws: `ChatError.notAllowed` (conversations), `.forbidden`, `.notFound`.
    @discardableResult
    public func removeRateLimit() async throws -> Channel {
        try await client.channel(answering: .removeRateLimit(channelId: channelId))
    }

    /// Mutes the whole channel for `period` seconds (`-1`: until unmuted): only moderators and
    /// admins can send meanwhile.
    /// - Returns: the channel after the change (`isMuted == true`).
    /// - Throws: `ChatError.invalidArgument(field: "period")`, `.notAllowed` (conversations),
    ///   `.forbidden`, `.notFound`.
    @discardableResult
    public func muteChannel(period: TimeInterval) async throws -> Channel {
        try await client.channel(answering: .muteChannel(channelId: channelId, period: period))
    }

    /// Lifts a channel mute.
    /// - Returns: the channel after the change.
    /// - Throws: as ``muteChannel(period:)``.
    @discardableResult
    public func unmuteChannel() async throws -> Channel {
        try await client.channel(answering: .unmuteChannel(channelId: channelId))
    }
}
