import ChatAPI
import Foundation

/// What an entry of the change log does to the state, written once: a single node applies it
/// inline, every node of a cluster applies it as it reads it from the log.
extension ServerCore {
    /// Applies a client's request of `device` (admitted before it was logged: see
    /// ``admit(_:from:linkId:now:)``), publishes the events of its changes and spends the
    /// message and creation budgets it used; a message sent is pushed to the members away
    /// (``notePushes(for:now:)``) when `pushing` (on a cluster, by the node that wrote it).
    ///
    /// - Throws: the request's error; nothing changed then and nothing is spent.
    mutating func applyRequest(
        _ request: ChatRequest, from device: ServerState.DeviceKey, now: Date, pushing: Bool = true
    ) throws(ChatError) -> ChatResponse {
        let channelCount = state.channels.count
        let response: ChatResponse
        do {
            defer { publishEmissions(now: now) }
            response = try state.handle(request, from: device, now: now)
        }
        limits.spend(after: request, by: device.userId, created: state.channels.count > channelCount, now: now)
        if pushing, case .sendMessage = request, case .message(let message) = response {
            notePushes(for: message, now: now)
        }
        return response
    }

    /// Applies a console call: permissions are bypassed, the rules of channel types are not;
    /// the events of its changes are published; a message sent is pushed when `pushing` (as
    /// ``applyRequest(_:from:now:pushing:)``).
    ///
    /// - Throws: the call's error; nothing changed then.
    mutating func apply(_ call: ConsoleCall, now: Date, pushing: Bool = true) throws(ChatError) -> ChangeOutcome {
        defer { publishEmissions(now: now) }
        switch call {
        case .registerUser(let id, let displayName, let isAdmin):
            return .user(try state.registerUser(id: id, displayName: displayName, isAdmin: isAdmin, now: now))
        case .createChannel(let draft):
            let id = try state.createChannel(draft, by: .console, now: now).channelId
            return .channel(try state.getChannel(id, by: .console, now: now))
        case .updateChannel(let changes):
            return .channel(try state.updateChannel(changes, by: .console, now: now))
        case .addMembers(let userIds, let channelId):
            try state.addMembers(userIds, to: channelId, by: .console, now: now)
            return .done
        case .sendMessage(let userId, let draft):
            let message = try state.sendMessage(draft, by: userId, now: now)
            if pushing { notePushes(for: message, now: now) }
            return .message(message)
        case .deleteChannel(let channelId):
            try state.deleteChannel(channelId, by: .console, now: now)
            return .done
        case .moderate(let request):
            return try state.moderate(request, now: now).map(ChangeOutcome.message) ?? .done
        case .dismissFlags(let channelId, let subject):
            try state.dismissFlags(of: subject, in: channelId)
            return .done
        case .disconnect(let userId, let deviceId):
            try disconnect(ServerState.DeviceKey(userId: userId, deviceId: deviceId), now: now)
            return .done
        case .banUser(let userId, let banned):
            try setServiceBan(userId, banned: banned, now: now)
            return .done
        case .removePushDevice(let userId, let device):
            let key = PushRegistration.key(device.provider, device.id)
            guard state.pushDevices[key]?.userId == userId else {
                throw .notFound("push device '\(device.id)' of user '\(userId)'")
            }
            state.removePushRegistration(key)
            return .done
        }
    }

    /// Bans `userId` from the service (`banned`: every connection of theirs ends, on whichever
    /// node holds it, with `connectionLost(forbidden)`, and no connect of theirs is accepted) or
    /// lifts the ban.
    ///
    /// - Throws: `notFound` for an unknown user. Changes nothing then.
    mutating func setServiceBan(_ userId: String, banned: Bool, now: Date) throws(ChatError) {
        try state.setServiceBan(userId, banned: banned, now: now)
        guard banned else { return }
        let reason = DisconnectReason.connectionLost(.forbidden("user '\(userId)' is banned from the service"))
        for device in hub.devices(of: userId) where isConnected(device) {
            if cluster != nil {
                ServerEngine.disconnectEverywhere(device, reason: reason, now: now, in: &self)
            } else if let link = hub.linkId(of: device) {
                detach(device, linkId: link, reason: reason, now: now)
            }
        }
    }

    /// Ends a device's connection for the console: its node closes it (the client is told
    /// `connectionLost(forbidden)`: over the wire, close 1011) and, on a cluster, every node
    /// counts it gone, as for a connection that ended.
    ///
    /// - Throws: `notFound` when the device is not connected.
    mutating func disconnect(_ device: ServerState.DeviceKey, now: Date) throws(ChatError) {
        let reason = DisconnectReason.connectionLost(.forbidden("an admin disconnected this device"))
        if cluster != nil {
            guard cluster!.connections[device] != nil else { throw Self.notConnected(device) }
            ServerEngine.disconnectEverywhere(device, reason: reason, now: now, in: &self)
        } else {
            guard let link = hub.linkId(of: device) else { throw Self.notConnected(device) }
            detach(device, linkId: link, reason: reason, now: now)
        }
    }

    private static func notConnected(_ device: ServerState.DeviceKey) -> ChatError {
        .notFound("a connection of device '\(device.deviceId)' of user '\(device.userId)'")
    }
}
