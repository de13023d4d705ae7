import ChatAPI

extension ChannelModeration {
    // MARK: Flags

    /// Flags a message of this channel for its moderators (idempotent). Community and live
    /// channels only, by their members.
    /// - Throws: `ChatError.notAllowed` (another channel type), `.forbidden` (not a member),
    ///   `.notFound` (no such message in this channel).
    public func flagMessage(_ messageId: String) async throws {
        try await client.sync.perform(.flagMessage(channelId: channelId, messageId: messageId))
    }

    /// Withdraws the current user's flag of a message.
    /// - Throws: as ``flagMessage(_:)``.
    public func unflagMessage(_ messageId: String) async throws {
        try await client.sync.perform(.unflagMessage(channelId: channelId, messageId: messageId))
    }

    /// Flags a member (or banned user) of this channel for its moderators (idempotent).
    /// - Throws: as ``flagMessage(_:)``; `.notFound` for a user who is neither.
    public func flagUser(_ userId: String) async throws {
        try await client.sync.perform(.flagUser(channelId: channelId, userId: userId))
    }

    /// Withdraws the current user's flag of a user.
    /// - Throws: as ``flagUser(_:)``.
    public func unflagUser(_ userId: String) async throws {
        try await client.sync.perform(.unflagUser(channelId: channelId, userId: userId))
    }

    /// What members flagged in this channel — messages in sequence order, then users by id —
    /// with who flagged each. For moderators and admins.
    /// - Throws: `ChatError.forbidden` (not a moderator), `.notAllowed` (conversations).
    public func flagReports() async throws -> [FlagReport] {
        try await client.sync.perform(.flagReports(channelId: channelId))
            .expected(\.flagReportsValue, answering: "a flag report request")
    }

    // MARK: Content filters

    /// The channel's content filters (blocked words, allowed link domains). For moderators and
    /// admins of community and live channels.
    /// - Throws: `ChatError.forbidden`, `.notAllowed` (other channel types).
    public func moderationSettings() async throws -> ModerationSettings {
        try await settings(answering: .getModerationSettings(channelId: channelId))
    }

    /// Replaces the channel's content filters; they apply to every message sent or edited from
    /// now on, by anyone (a blocked word refuses the message or is masked with asterisks; a link
    /// outside the allowed domains refuses it with `ChatError.invalidArgument(field: "text")`).
    /// - Returns: the settings as stored (words trimmed, domains lowercased).
    /// - Throws: as ``moderationSettings()``; `.invalidArgument` (`blockedWords`,
    ///   `allowedURLDomains`).
    @discardableResult
    public func setModerationSettings(_ settings: ModerationSettings) async throws -> ModerationSettings {
        try await self.settings(answering: .setModerationSettings(channelId: channelId, settings))
    }

    private func settings(answering request: ChatRequest) async throws -> ModerationSettings {
        try await client.sync.perform(request).expected(\.moderationSettingsValue, answering: "\(request)")
    }
}
