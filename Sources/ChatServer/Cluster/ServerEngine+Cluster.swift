import ChatAPI
import Foundation

/// A node of a cluster: every change goes through the change log (``ClusterReplica``) and is
/// applied here, in log order, by every node (``apply(_:)``).
extension ServerEngine {
    /// Applies committed entries in position order: each is applied once, at the latest of the
    /// time the log wrote it (``ServerLogEntry/writtenAt``: the database's clock, never a node's)
    /// and the time of the entries before it. Its writer (if this run of this node) gets the
    /// outcome. An entry this node cannot read stops it (``halt(because:)``) at that position:
    /// skipping it would leave this node's state apart from the others' without a word.
    ///
    /// - Complexity: per entry, what the request costs on a single server.
    func apply(_ entries: [ServerLogEntry]) {
        guard let replica else { return }
        var outcomes: [(UInt64, Result<ChangeOutcome, ChatError>)] = []
        let (unreadable, _) = withCore { (core: inout ServerCore) -> String? in
            defer { replica.noteApplied(through: core.cluster!.position, at: core.cluster!.time) }
            if replica.haltReason != nil { return nil }
            for entry in entries where entry.position == core.cluster!.position + 1 {
                let decoded: ChangeEntry
                do throws(ChatError) {
                    decoded = try ChangeEntry.decode(entry.bytes)
                } catch {
                    let why: String
                    if case .unavailable(let reason) = error { why = reason } else { why = "\(error)" }
                    return "this node cannot read the change log's entry at position \(entry.position): \(why)"
                }
                core.cluster!.position = entry.position
                let now = max(core.cluster!.time, entry.writtenAt ?? decoded.time)
                core.cluster!.time = now
                core.state.expireTimers(now: now)
                core.publishEmissions(now: now)
                let isMine = replica.wrote(decoded)
                let result = Result { () throws(ChatError) in
                    try apply(decoded, isMine: isMine, at: entry.position, now: now, to: &core)
                }
                if isMine, decoded.ref != 0 { outcomes.append((decoded.ref, result)) }
            }
            return nil
        }
        replica.complete(outcomes)
        if let unreadable { halt(because: unreadable) }
    }

    /// Stops this node for `reason` (an entry it cannot read, its lease lost): it says why
    /// (``ChatServer/haltReason``; `chat-server` logs it and its `/healthz` answers 503), and
    /// stops as ``halt()`` does, so that its clients reconnect to another node.
    func halt(because reason: String) {
        replica?.noteHalt(reason)
        halt()
    }

    private func apply(
        _ entry: ChangeEntry, isMine: Bool, at position: Int, now: Date, to core: inout ServerCore
    ) throws(ChatError) -> ChangeOutcome {
        switch entry.kind {
        case .request(let userId, let deviceId, let request):
            // Admitted by the rate limits on its writer's node before it was logged (a refused
            // request is never logged): applying it never depends on buckets a node may lack.
            // Reads are answered by their node without being logged (see ``ChangeLog``).
            let device = DeviceKey(userId: userId, deviceId: deviceId)
            let response = try core.applyRequest(request, from: device, now: now, pushing: isMine)
            return isMine ? .response(core.envelope(for: device, response)) : .done

        case .attach(let userId, let deviceId, let resumeAfter):
            let device = DeviceKey(userId: userId, deviceId: deviceId)
            let pending = isMine ? core.cluster!.pendingLinks.removeValue(forKey: entry.ref) : nil
            try core.checkConnect(of: device)
            let previous = core.cluster!.connections[device]
            if let previous {
                // The device's connection elsewhere (or an earlier one here) is replaced.
                if previous.node == core.cluster!.nodeId, let link = core.hub.linkId(of: device) {
                    _ = core.hub.detach(device, linkId: link, reason: .replaced)
                }
                core.state.stopAllReading(device: device)
            }
            core.state.ensureUser(userId, now: now)
            core.hub.ensureSlot(device)
            core.cluster!.connections.connect(device, .init(node: entry.node, attachedAt: position))
            core.updatePresence(of: userId, now: now)
            var outcome = ChangeOutcome.done
            if isMine {
                if let pending {
                    let attachment = core.hub.attach(
                        device, mailbox: pending.mailbox, interrupt: pending.interrupt, resumingAfter: resumeAfter,
                        now: now)
                    let result = ConnectResult(
                        status: attachment.status, currentUser: core.state.users[userId]!,
                        lastSequence: attachment.lastSequence, epoch: epoch)
                    outcome = .connected(result, linkId: attachment.linkId)
                } else {
                    // Its connection gave up waiting: it ends at once.
                    core.cluster!.noteOrphanAttach(of: device, at: position)
                }
            }
            core.disconnectSlowDevices(now: now)
            return outcome

        case .detach(let userId, let deviceId, let attachedAt):
            let device = DeviceKey(userId: userId, deviceId: deviceId)
            if core.cluster!.connections[device]?.attachedAt == attachedAt {
                Self.disconnectEverywhere(device, reason: .requested, now: now, in: &core)
            }
            return .done

        case .console(let call):
            return try core.apply(call, now: now, pushing: isMine)

        case .tick:
            return .done

        case .nodeDown(let node):
            for device in core.cluster!.connections.devices(on: node) {
                Self.disconnectEverywhere(device, reason: .connectionLost(Self.closedError), now: now, in: &core)
            }
            return .done
        }
    }

    /// Ends `device`'s connection on every node: its node closes it; everyone stops its reading
    /// and, when it was its user's last device, the user's typing and presence.
    static func disconnectEverywhere(
        _ device: DeviceKey, reason: DisconnectReason, now: Date, in core: inout ServerCore
    ) {
        guard let connection = core.cluster!.connections.disconnect(device) else { return }
        if connection.node == core.cluster!.nodeId, let link = core.hub.linkId(of: device) {
            _ = core.hub.detach(device, linkId: link, reason: reason)
        }
        core.state.stopAllReading(device: device)
        if core.cluster!.connections.count(of: device.userId) == 0 {
            core.state.endAllTyping(userId: device.userId)
            core.state.setPresence(device.userId, isOnline: false, now: now)
        }
        core.publishEmissions(now: now)
    }

    // MARK: Entry points of a node

    /// Opens a connection on a node: the attach is logged; the connection is made here when it
    /// applies.
    func connectReplicated(
        _ device: DeviceKey, replacing previous: UInt64?, mailbox: EventMailbox,
        interrupt: (@Sendable (DisconnectReason) -> Void)?, resumingAfter sequence: Int?, replica: ClusterReplica
    ) async throws(ChatError) -> (result: ConnectResult, linkId: UInt64) {
        try InputCheck.id(device.userId, field: "userId")
        try InputCheck.id(device.deviceId, field: "deviceId")
        let ref = replica.newRef()
        try withCore { (core: inout ServerCore) throws(ChatError) in
            if core.isClosed { throw Self.closedError }
            if let error = core.faults.takeConnectFailure(for: device) { throw error }
            if let previous {
                core.detach(device, linkId: previous, reason: .requested, now: clock.now, updatingPresence: false)
            }
            core.cluster!.pendingLinks[ref] = ClusterCore.PendingLink(mailbox: mailbox, interrupt: interrupt)
        }
        do throws(ChatError) {
            let outcome = try await replica.submit(
                .attach(userId: device.userId, deviceId: device.deviceId, resumeAfter: sequence), ref: ref,
                time: clock.now)
            guard case .connected(let result, let linkId) = outcome else {
                throw .unavailable("the server lost the connection")
            }
            return (result, linkId)
        } catch {
            // Not applied (yet): if it applies later, the connection ends at once.
            withCore { core in _ = core.cluster!.pendingLinks.removeValue(forKey: ref) }
            throw error
        }
    }

    /// Logs the ends of this node's connections, noted under the lock (``withCore(_:)`` takes
    /// them as it releases it).
    func logDetaches(_ detaches: [(DeviceKey, Int)]) {
        guard let replica else { return }
        for (device, attachedAt) in detaches {
            replica.post(
                .detach(userId: device.userId, deviceId: device.deviceId, attachedAt: attachedAt), time: clock.now)
        }
    }
}

extension ChatRequest {
    /// Whether the request only reads (a node of a cluster answers it from its state; the other
    /// nodes skip it).
    var isRead: Bool {
        switch self {
        case .getChannel, .queryChannels, .queryMembers, .queryMessages, .flagReports, .getModerationSettings, .getUser,
            .searchUsers, .hasPermission, .getChannelNotifications:
            return true
        default:
            return false
        }
    }
}

extension ServerEngine {
    /// Stops this node as a crash would: its connections end, it stops reading and beating, and
    /// the log is told nothing (the other nodes count its devices offline once it has been
    /// silent long enough). For tests of a node that dies.
    func halt() {
        withCore { core in
            core.isClosed = true
            for (device, linkId) in core.hub.connectedDevices {
                _ = core.hub.detach(device, linkId: linkId, reason: .connectionLost(Self.closedError))
            }
        }
        replica?.halt()
    }
}
