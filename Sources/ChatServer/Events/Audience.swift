/// Who an event is for, resolved against the state right after the change.
enum Audience: Sendable, Hashable {
    /// Every user who can see the channel, plus `also` (e.g. a user just removed from it).
    case channelViewers(String, also: [String] = [])
    /// The channel's members, plus `also`.
    case channelMembers(String, also: [String] = [])
    /// Users who can see the channel but are not members, except `except`: they get the
    /// channel's new summary when something they cannot read in detail changed it.
    case channelOutsiders(String, except: [String] = [])
    /// Exactly these users.
    case users([String])
    /// Every user with a connection.
    case allUsers
}
