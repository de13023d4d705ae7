import Foundation
import LiveChannels

/// Seed 001: one channel controller — the channel, its messages (newest first), the typing
/// indicator and member events.
@MainActor
final class ChannelScreen: ChatChannelControllerDelegate {
    let client: ChatClient
    let other: ChatClient
    let waiter = Waiter()
    var typingText = ""
    /// The user ids the member events said were added.
    var addedMembers: Set<String> = []

    init(client: ChatClient, other: ChatClient) {
        self.client = client
        self.other = other
    }

    func run() async throws {
        let controller = client.channelController(for: "general")
        controller.delegate = self
        try await controller.synchronize()
        print("channel:", controller.channel?.displayName ?? "-", "messages:", controller.messages.map(\.text))

        // Bob types, then sends: the typing indicator shows him, then clears.
        let bobs = other.channelController(for: "general")
        try await bobs.synchronize()
        try await bobs.sendKeystroke()
        await waiter.until { self.typingText == "Bob is typing…" }
        try await bobs.sendMessage(text: "are you there?")
        await waiter.until { controller.messages.first?.text == "are you there?" && self.typingText.isEmpty }

        // We answer (with the completion form, as a Stream app written for it does), and mark
        // the channel read (with the async form).
        let id: String = try await withCheckedThrowingContinuation { continuation in
            controller.createNewMessage(text: "yes!") { continuation.resume(with: $0) }
        }
        print("sent message", id)
        try await controller.markAsRead()
        await waiter.until { controller.channel?.unreadCount == 0 }
        print("unread:", controller.channel?.unreadCount ?? -1)

        // Bob adds carol: a member event.
        try await bobs.addMembers(["carol"])
        await waiter.until { controller.channel?.memberCount == 3 && self.addedMembers.contains("carol") }
    }

    func channelController(_ channelController: ChatChannelController, didUpdateChannel channel: EntityChange<Channel>)
    {
        switch channel {
        case .create(let channel): print("  channel created:", channel.channelId)
        case .update(let channel):
            print("  channel updated: members", channel.memberCount, "unread", channel.unreadCount)
        case .remove(let channel): print("  channel removed:", channel.channelId)
        }
        waiter.check()
    }

    func channelController(_ channelController: ChatChannelController, didUpdateMessages changes: [ListChange<Message>])
    {
        for case .insert(let message, let index) in changes { print("  message at row \(index[1]):", message.text) }
        waiter.check()
    }

    func channelController(_ channelController: ChatChannelController, didChangeTypingUsers typingUsers: Set<User>) {
        // The seed's typing indicator text.
        let names = typingUsers.map { $0.displayName ?? $0.userId }.sorted()
        typingText =
            switch names.count {
            case 0: ""
            case 1: "\(names[0]) is typing…"
            default: names.joined(separator: ", ") + " are typing…"
            }
        print("  typing:", typingText.isEmpty ? "(nobody)" : typingText)
        waiter.check()
    }

    func channelController(_ channelController: ChatChannelController, didReceiveMemberEvent event: MemberEvent) {
        print("  member event:", event.summary)
        if case .added(let member) = event { addedMembers.insert(member.userId) }
        waiter.check()
    }
}

extension MemberEvent {
    var summary: String {
        switch self {
        case .added(let member): "added \(member.userId)"
        case .updated(let member): "updated \(member.userId)"
        case .removed(let userId): "removed \(userId)"
        }
    }
}
