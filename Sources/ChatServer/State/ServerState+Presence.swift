import ChatAPI
import Foundation

/// Presence: a user is online while any of their devices is connected; `lastActiveAt` is the
/// time their last device disconnected.
///
/// ## Who is told
/// A presence change is sent (as `ChatEvent.presenceChanged`) only on a transition (first
/// device connects, last device disconnects), to:
/// - every member of every channel the user is a member of (they see the user in member lists,
///   typing indicators and conversations), and
/// - every user who looked the user up (`getUser`, `searchUsers`) while connected (a "new chat"
///   screen showing search results), until that viewer's last device disconnects;
///
/// never to the user's own devices (a connected device knows its user is online; the connect
/// result carries the user as online). Not `.allUsers`: a connect would then cost one event per
/// connected user, and clients would hear about strangers they never see.
extension ServerState {
    /// The users told about `userId`'s presence (see the extension's discussion).
    ///
    /// - Complexity: O(total members of the user's channels + watchers).
    func presenceAudience(of userId: String) -> [String] {
        var audience = presenceWatchers[userId] ?? []
        for channelId in memberships[userId] ?? [] {
            guard let channel = channels[channelId] else { continue }
            audience.formUnion(channel.members.keys)
        }
        audience.remove(userId)
        return audience.sorted()
    }

    /// Sets `userId`'s presence to `isOnline`; on a change, stamps `lastActiveAt` (going
    /// offline) and emits `presenceChanged` to ``presenceAudience(of:)``. Going offline also
    /// forgets whom the user looked up.
    mutating func setPresence(_ userId: String, isOnline: Bool, now: Date) {
        guard var user = users[userId], user.isOnline != isOnline else { return }
        user.isOnline = isOnline
        if !isOnline { user.lastActiveAt = now }
        users[userId] = user
        emit(.presenceChanged(userId: userId), to: .users(presenceAudience(of: userId)))
        if !isOnline { forgetWatches(of: userId) }
    }

    /// Records that `viewer` was shown `userIds` (they hear of their presence from now on).
    ///
    /// - Complexity: O(`userIds`).
    mutating func watchPresence(of userIds: some Sequence<String>, by viewer: String) {
        for userId in userIds where userId != viewer {
            presenceWatchers[userId, default: []].insert(viewer)
            watchedUsers[viewer, default: []].insert(userId)
        }
    }

    private mutating func forgetWatches(of viewer: String) {
        for userId in watchedUsers.removeValue(forKey: viewer) ?? [] {
            presenceWatchers[userId]?.remove(viewer)
            if presenceWatchers[userId]?.isEmpty == true { presenceWatchers[userId] = nil }
        }
    }
}
