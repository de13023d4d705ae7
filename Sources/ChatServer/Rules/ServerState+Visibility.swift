import ChatAPI

extension ServerState {
    /// Whether `caller` can see `channel` at all (a channel one cannot see is `notFound`).
    ///
    /// - community, broadcast, standard: everyone.
    /// - live, private: members, banned users (so they can learn they are banned) and admins.
    /// - conversation: its members only (not even admins).
    /// - The console sees everything.
    func canSee(_ channel: ChannelRecord, caller: Caller) -> Bool {
        guard let userId = caller.userId else { return true }
        switch channel.type {
        case .community, .broadcast, .standard:
            return true
        case .live, .private:
            return channel.isMember(userId) || channel.isBanned(userId) || isAdmin(userId)
        case .conversation:
            return channel.isMember(userId)
        }
    }
}
