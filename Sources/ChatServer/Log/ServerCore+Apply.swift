import ChatAPI
import Foundation

/// What an entry of the change log does to the state, written once: a single node applies it
/// inline (``LocalChangeLog``), every node of a cluster applies it as it reads it from the log
/// (``ServerEngine/apply(_:)``).
extension ServerCore {
    /// Applies `entry`, the log's entry at `position`, at the latest of `time` and the time of
    /// the entries before it (time never goes backwards): timers due by then expire first, then
    /// the entry does what its kind says, and the events of its changes are published. An entry
    /// is applied once per node, in position order, and its outcome is a function of the state
    /// before it and the entry alone, so every node computes the same state. `isMine`: whether
    /// this run of this node wrote it (its caller is answered; a message it sends is pushed by
    /// this node only).
    ///
    /// - Returns: for an entry of this node, what its caller is answered (a request's response
    ///   envelope, a connect's result, a console call's outcome); else `.done`.
    /// - Throws: the entry's error (a refused request, a connect refused by the checks); the
    ///   position and time still move.
    /// - Complexity: per entry, what its request or call costs.
    mutating func apply(_ entry: ChangeEntry, at position: Int, time: Date, isMine: Bool) throws(ChatError)
        -> ChangeOutcome
    {
        applied.position = position
        let now = max(applied.time, time)
        applied.time = now
        state.expireTimers(now: now)
        publishEmissions(now: now)
        switch entry.kind {
        case .request(let userId, let deviceId, let request):
            // Admitted by the rate limits on its writer's node before it was logged (a refused
            // request is never logged): applying it never depends on buckets a node may lack.
            // Reads are answered by their node without being logged (see ``ChangeLog``).
            let device = ServerState.DeviceKey(userId: userId, deviceId: deviceId)
            let response = try applyRequest(request, from: device, now: now, pushing: isMine)
            return isMine ? .response(envelope(for: device, response)) : .done

        case .attach(let userId, let deviceId, let resumeAfter):
            let device = ServerState.DeviceKey(userId: userId, deviceId: deviceId)
            return try attach(
                device, on: entry.node, resumingAfter: resumeAfter,
                link: isMine ? .some(applied.pendingLinks.removeValue(forKey: entry.ref)) : nil,
                at: position, now: now)

        case .detach(let userId, let deviceId, let attachedAt):
            let device = ServerState.DeviceKey(userId: userId, deviceId: deviceId)
            // Only the connection that attach made ends (the device may have connected again since).
            if applied.connections[device]?.attachedAt == attachedAt {
                endConnection(device, reason: .requested, now: now)
            }
            return .done

        case .console(let call):
            return try apply(call, now: now, pushing: isMine)

        case .tick:
            return .done

        case .nodeDown(let node):
            for device in applied.connections.devices(on: node) {
                endConnection(device, reason: .connectionLost(ServerEngine.closedError), now: now)
            }
            return .done
        }
    }

    /// Connects `device` to `node` (the attach entry at `position`): the checks of a connect,
    /// the device's connection elsewhere (or an earlier one here) replaced, its user registered
    /// on first connect and online. `link`: `nil` for another node's (or another run's) attach;
    /// for this run's, the connection that waits for it — linked now, resuming after
    /// `resumeAfter` — or, when it gave up waiting (`.some(nil)`), the connection ends at once.
    private mutating func attach(
        _ device: ServerState.DeviceKey, on node: String, resumingAfter resumeAfter: Int?,
        link: AppliedLog.PendingLink??, at position: Int, now: Date
    ) throws(ChatError) -> ChangeOutcome {
        try checkConnect(of: device)
        if let previous = applied.connections[device] {
            if previous.node == applied.nodeId, let link = hub.linkId(of: device) {
                _ = hub.detach(device, linkId: link, reason: .replaced)
            }
            state.stopAllReading(device: device)
        }
        state.ensureUser(device.userId, now: now)
        hub.ensureSlot(device)
        applied.connections.connect(device, .init(node: node, attachedAt: position))
        updatePresence(of: device.userId, now: now)
        var outcome = ChangeOutcome.done
        switch link {
        case .some(.some(let pending)):
            let attachment = hub.attach(
                device, mailbox: pending.mailbox, interrupt: pending.interrupt, resumingAfter: resumeAfter, now: now)
            let result = ConnectResult(
                status: attachment.status, currentUser: state.users[device.userId]!,
                lastSequence: attachment.lastSequence, epoch: applied.epoch)
            outcome = .connected(result, linkId: attachment.linkId)
        case .some(.none):
            applied.noteOrphanAttach(of: device, at: position)
        case .none:
            break
        }
        disconnectSlowDevices(now: now)  // a replay longer than the pending limit
        return outcome
    }

    /// Ends `device`'s connection on every node: its node closes it with `reason`; everyone
    /// stops its reading and, when it was its user's last device, the user's typing and
    /// presence.
    mutating func endConnection(_ device: ServerState.DeviceKey, reason: DisconnectReason, now: Date) {
        guard let connection = applied.connections.disconnect(device) else { return }
        if connection.node == applied.nodeId, let link = hub.linkId(of: device) {
            _ = hub.detach(device, linkId: link, reason: reason)
        }
        state.stopAllReading(device: device)
        if applied.connections.count(of: device.userId) == 0 {
            state.endAllTyping(userId: device.userId)
            state.setPresence(device.userId, isOnline: false, now: now)
        }
        publishEmissions(now: now)
    }

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
            endConnection(device, reason: reason, now: now)
        }
    }

    /// Ends a device's connection for the console: its node closes it (the client is told
    /// `connectionLost(forbidden)`: over the wire, close 1011) and every node counts it gone, as
    /// for a connection that ended.
    ///
    /// - Throws: `notFound` when the device is not connected.
    mutating func disconnect(_ device: ServerState.DeviceKey, now: Date) throws(ChatError) {
        guard isConnected(device) else { throw Self.notConnected(device) }
        endConnection(device, reason: .connectionLost(.forbidden("an admin disconnected this device")), now: now)
    }

    private static func notConnected(_ device: ServerState.DeviceKey) -> ChatError {
        .notFound("a connection of device '\(device.deviceId)' of user '\(device.userId)'")
    }
}
