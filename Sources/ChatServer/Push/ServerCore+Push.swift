import ChatAPI
import Foundation

extension ServerCore {
    /// The longest push body, in characters.
    static let pushBodyLength = 200

    /// Hands the pushes of `message`, just sent, to ``pushSink``: one per registered device of
    /// each member who is not the sender, has no device connected (on any node of a cluster),
    /// has the channel's notifications on, while the channel is not muted.
    ///
    /// - Complexity: O(min(members, users with push tokens)) + O(channels) per push recipient
    ///   (the badge); nothing without a sink.
    func notePushes(for message: Message, now: Date) {
        guard let sink = pushSink, let channel = state.channels[message.channelId] else { return }
        if let until = channel.mutedUntil, until > now { return }
        let channelId = message.channelId
        let candidates: [String] =
            state.pushKeysByUser.count < channel.members.count
            ? state.pushKeysByUser.keys.filter { channel.isMember($0) }
            : channel.members.keys.filter { state.pushKeysByUser[$0] != nil }
        var notifications: [PushNotification] = []
        for userId in candidates.sorted() where userId != message.userId {
            if state.notificationsOff[userId]?.contains(channelId) == true { continue }
            if connectedDeviceCount(of: userId) > 0 { continue }
            let badge = state.totalUnreadCount(userId: userId)
            for registration in state.pushRegistrations(of: userId) {
                notifications.append(
                    PushNotification(
                        userId: userId, device: registration.device, title: pushTitle(of: channel.info, from: message),
                        body: String("\(senderName(of: message)): \(message.text)".prefix(Self.pushBodyLength)),
                        badge: badge, channelId: channelId, messageId: message.messageId))
            }
        }
        if !notifications.isEmpty { sink.enqueue(notifications) }
    }

    private func senderName(of message: Message) -> String {
        state.users[message.userId]?.displayName ?? message.userId
    }

    private func pushTitle(of channel: Channel, from message: Message) -> String {
        channel.type == .conversation ? senderName(of: message) : (channel.displayName ?? channel.channelId)
    }
}
