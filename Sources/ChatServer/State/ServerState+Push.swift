import ChatAPI
import Foundation

/// A push token registered by a device of a user (``ChatRequest/addPushDevice(_:)``).
struct PushRegistration: Sendable, Hashable {
    var userId: String
    var deviceId: String
    var device: PushDevice

    /// Its key among every registration: a token is one device of one provider, whoever holds it.
    var key: String { Self.key(device.provider, device.id) }

    static func key(_ provider: PushDevice.Provider, _ id: String) -> String { "\(provider.rawValue):\(id)" }
}

extension ServerState {
    /// Registers `pushDevice` for `device`'s user, as that device's; a token another user held
    /// moves (both users' rows change).
    ///
    /// - Throws: `invalidArgument` (`device`) for a token that is empty, too long, or (Firebase)
    ///   holds spaces.
    /// - Complexity: O(1).
    mutating func addPushDevice(_ pushDevice: PushDevice, for device: DeviceKey) throws(ChatError) {
        guard pushDevice.isValid else {
            throw .invalidArgument(
                field: "device",
                reason: "a push token has 1 to \(PushDevice.maximumTokenLength) characters and no spaces")
        }
        let registration = PushRegistration(userId: device.userId, deviceId: device.deviceId, device: pushDevice)
        if let previous = pushDevices[registration.key] {
            if previous == registration { return }
            pushKeysByUser[previous.userId]?.remove(registration.key)
            touchUser(previous.userId)
        }
        pushDevices[registration.key] = registration
        pushKeysByUser[device.userId, default: []].insert(registration.key)
        touchUser(device.userId)
    }

    /// Removes a push token of `device`'s user: the one whose id is `id` (of any provider), or
    /// (`nil`) every token that device registered.
    ///
    /// - Throws: `notFound` when the user has no such token (none at all, for `nil`).
    /// - Complexity: O(tokens of the user).
    mutating func removePushDevice(id: String?, of device: DeviceKey) throws(ChatError) {
        let keys = (pushKeysByUser[device.userId] ?? []).filter { key in
            guard let registration = pushDevices[key] else { return false }
            return id.map { registration.device.id == $0 } ?? (registration.deviceId == device.deviceId)
        }
        guard !keys.isEmpty else {
            throw .notFound(id.map { "push device '\($0)'" } ?? "a push device of device '\(device.deviceId)'")
        }
        for key in keys { removePushRegistration(key) }
    }

    /// Forgets a registration (the user's or a provider's removal: the token is gone).
    mutating func removePushRegistration(_ key: String) {
        guard let registration = pushDevices.removeValue(forKey: key) else { return }
        pushKeysByUser[registration.userId]?.remove(key)
        if pushKeysByUser[registration.userId]?.isEmpty == true { pushKeysByUser[registration.userId] = nil }
        touchUser(registration.userId)
    }

    /// The push tokens of `userId`, by key.
    func pushRegistrations(of userId: String) -> [PushRegistration] {
        (pushKeysByUser[userId] ?? []).sorted().compactMap { pushDevices[$0] }
    }

    /// Turns `userId`'s push notifications of a channel on or off.
    ///
    /// - Throws: `notFound` (the channel, as the user sees it); `forbidden` (not a member).
    mutating func setChannelNotifications(_ channelId: String, enabled: Bool, userId: String, now: Date)
        throws(ChatError)
    {
        try checkNotificationMember(channelId, userId: userId, now: now)
        let wasOff = notificationsOff[userId]?.contains(channelId) ?? false
        guard wasOff == enabled else { return }
        if enabled {
            notificationsOff[userId]?.remove(channelId)
            if notificationsOff[userId]?.isEmpty == true { notificationsOff[userId] = nil }
        } else {
            notificationsOff[userId, default: []].insert(channelId)
        }
        touchUser(userId)
    }

    /// Whether `userId`'s push notifications of a channel are on.
    ///
    /// - Throws: as ``setChannelNotifications(_:enabled:userId:now:)``.
    func channelNotifications(_ channelId: String, userId: String, now: Date) throws(ChatError) -> Bool {
        try checkNotificationMember(channelId, userId: userId, now: now)
        return !(notificationsOff[userId]?.contains(channelId) ?? false)
    }

    private func checkNotificationMember(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        try InputCheck.id(channelId, field: "channelId")
        _ = try getChannel(channelId, by: .user(userId), now: now)
        guard channels[channelId]?.isMember(userId) == true else {
            throw .forbidden("user '\(userId)' is not a member of channel '\(channelId)'")
        }
    }

    /// Marks a user's row changed (its stored extras — ban, push tokens, notification settings —
    /// moved), without changing the user.
    mutating func touchUser(_ userId: String) {
        if let user = users[userId] { users[userId] = user }
    }
}
