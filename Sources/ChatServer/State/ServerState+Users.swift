import ChatAPI
import Foundation

extension ServerState {
    /// Registers a user, or updates the profile of an existing one (the console's call).
    ///
    /// - Throws: `invalidArgument` for a malformed id or display name. Changes nothing then.
    @discardableResult
    mutating func registerUser(
        id: String, displayName: String?, isAdmin: Bool, now: Date
    ) throws(ChatError) -> User {
        try InputCheck.id(id, field: "userId")
        try InputCheck.displayName(displayName)
        if isAdmin { adminIds.insert(id) } else { adminIds.remove(id) }
        if var user = users[id] {
            user.displayName = displayName ?? user.displayName
            user.isAdmin = isAdmin
            user.updatedAt = now
            users[id] = user
            emit(.userUpdated(userId: id), to: .allUsers)
            return users[id]!
        }
        var user = User(userId: id, displayName: displayName, isAdmin: isAdmin, createdAt: now, updatedAt: now)
        user.version = nextRevision()
        users[id] = user
        return user
    }

    /// Bans `userId` from the whole service (`banned`), or lifts the ban: a banned user cannot
    /// connect (``ServerCore/checkConnect(of:)``); the caller ends their connections. Banning a
    /// banned user keeps the first ban's time.
    ///
    /// - Throws: `notFound` for an unknown user. Changes nothing then.
    mutating func setServiceBan(_ userId: String, banned: Bool, now: Date) throws(ChatError) {
        guard users[userId] != nil else { throw .notFound("user '\(userId)'") }
        let before = serviceBans[userId]
        serviceBans[userId] = banned ? (before ?? now) : nil
        if serviceBans[userId] != before { touchUser(userId) }  // the row holds the ban
    }

    /// Registers `id` as a plain user if it is unknown (first connect, console member lists).
    mutating func ensureUser(_ id: String, now: Date) {
        if users[id] == nil {
            var user = User(userId: id, createdAt: now, updatedAt: now)
            user.version = nextRevision()
            users[id] = user
        }
    }

    /// Changes a user's own profile. `nil` leaves a field as it is.
    ///
    /// - Throws: `notFound` for an unknown user; `invalidArgument`/`limitExceeded` for bad input.
    @discardableResult
    mutating func updateUser(
        _ userId: String, displayName: String?, metadata: [String: JSON]?, now: Date
    ) throws(ChatError) -> User {
        try InputCheck.displayName(displayName)
        if let metadata { try InputCheck.metadata(metadata) }
        guard var user = users[userId] else { throw .notFound("user '\(userId)'") }
        if let displayName { user.displayName = displayName }
        if let metadata { user.metadata = metadata }
        user.updatedAt = now
        users[userId] = user
        emit(.userUpdated(userId: userId), to: .allUsers)
        return users[userId]!
    }
}
