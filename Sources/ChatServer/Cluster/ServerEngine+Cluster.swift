import ChatAPI
import Foundation

/// A node of a cluster: every change goes through the change log (``ClusterReplica``) and is
/// applied here, in log order, by every node (``apply(_:)``), with the code a single node applies
/// its own entries with (``ServerCore/apply(_:at:time:isMine:)``).
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
            defer { replica.noteApplied(through: core.applied.position, at: core.applied.time) }
            if replica.haltReason != nil { return nil }
            for entry in entries where entry.position == core.applied.position + 1 {
                let decoded: ChangeEntry
                do throws(ChatError) {
                    decoded = try ChangeEntry.decode(entry.bytes)
                } catch {
                    let why: String
                    if case .unavailable(let reason) = error { why = reason } else { why = "\(error)" }
                    return "this node cannot read the change log's entry at position \(entry.position): \(why)"
                }
                let isMine = replica.wrote(decoded)
                let result = Result { () throws(ChatError) in
                    try core.apply(decoded, at: entry.position, time: entry.writtenAt ?? decoded.time, isMine: isMine)
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
        log.halt()
    }
}
