import ChatAPI
import LiveChannels

/// What the convergence checks compare of a channel: the fields a user sees change when other
/// users act (not timestamps, whose equality follows from the order of the list).
struct ChannelView: Equatable, CustomStringConvertible {
    let channelId: String
    let type: ChannelType
    let displayName: String?
    let metadata: [String: JSON]
    let tags: [String]
    let memberCount: Int
    let messageCount: Int
    let unreadCount: Int
    let membership: Membership
    let isDeleted: Bool

    init(_ channel: Channel) {
        channelId = channel.channelId
        type = channel.type
        displayName = channel.displayName
        metadata = channel.metadata
        tags = channel.tags
        memberCount = channel.memberCount
        messageCount = channel.messageCount
        unreadCount = channel.unreadCount
        membership = channel.currentUserMembership
        isDeleted = channel.isDeleted
    }

    var description: String {
        var parts = [
            "\(type.rawValue)", "name=\(displayName ?? "nil")", "members=\(memberCount)",
            "msgs=\(messageCount)", "unread=\(unreadCount)", "\(membership)",
        ]
        if !metadata.isEmpty { parts.append("meta=\(metadata.keys.sorted().map { "\($0):\(metadata[$0]!)" })") }
        if isDeleted { parts.append("DELETED") }
        return "\(channelId)(\(parts.joined(separator: " ")))"
    }
}

/// What the checks compare of a member: who, their membership, roles and mute flag (not the
/// read marker, which the server does not announce to other members).
struct MemberView: Equatable, CustomStringConvertible {
    let userId: String
    let membership: Membership
    let roles: [String]
    let isMuted: Bool

    init(_ member: ChannelMember) {
        userId = member.userId
        membership = member.membership
        roles = member.roles.sorted()
        isMuted = member.isMuted
    }

    var description: String {
        "\(userId)(\(membership)\(roles.isEmpty ? "" : " \(roles)")\(isMuted ? " muted" : ""))"
    }
}

/// What the checks compare of a message.
struct MessageView: Equatable, CustomStringConvertible {
    let messageId: String
    let sequence: Int
    let userId: String
    let text: String
    let isDeleted: Bool

    init(_ message: Message) {
        messageId = message.messageId
        sequence = message.sequence
        userId = message.userId
        text = message.text
        isDeleted = message.isDeleted
    }

    var description: String { "#\(sequence) \(userId): \(text)\(isDeleted ? " (deleted)" : "")" }
}

/// Compares a live list's window with the server's full answer: the window must be a prefix of
/// it (windows are key-bounded, so they may legitimately be shorter), and may only be shorter
/// while the list says more can be loaded.
/// - Returns: a readable description of the difference, or `nil` when they agree.
func windowDivergence<View: Equatable & CustomStringConvertible>(
    live: [View], hasNext: Bool, expected: [View]
) -> String? {
    if live.count > expected.count || Array(expected.prefix(live.count)) != live {
        let firstDifference = zip(live, expected).enumerated().first { $0.element.0 != $0.element.1 }
        var lines = ["window is not a prefix of the server's list"]
        lines.append("      live (\(live.count), hasNext \(hasNext)): \(live)")
        lines.append("    server (\(expected.count)): \(expected)")
        if let firstDifference {
            lines.append(
                "    first difference at \(firstDifference.offset): live \(firstDifference.element.0) ≠ server \(firstDifference.element.1)"
            )
        }
        return lines.joined(separator: "\n")
    }
    if live.count < expected.count && !hasNext {
        return
            "window ends early with hasNext == false: live \(live.count) of \(expected.count); missing \(Array(expected.dropFirst(live.count)))"
    }
    return nil
}
