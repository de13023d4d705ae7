import ChatAPI
import LiveChannels

/// A delegate of every controller that records each callback, checks on each list callback
/// that the changes lead from the list it saw last to the controller's list (already the new
/// one), and lets a test wait — without a clock — until a condition on what it recorded holds.
@MainActor
final class ControllerSpy:
    ChatChannelListControllerDelegate, ChatChannelControllerDelegate, ChatChannelMemberListControllerDelegate,
    ChatChannelMemberControllerDelegate, ChatUserSearchControllerDelegate
{
    var states: [DataControllerState] = []
    var willChangeChannels = 0
    var channelChanges: [[ListChange<Channel>]] = []
    var channelEntityChanges: [EntityChange<Channel>] = []
    var messageChanges: [[ListChange<Message>]] = []
    var typingUsers: [Set<User>] = []
    var memberEvents: [MemberEvent] = []
    var memberChanges: [[ListChange<ChannelMember>]] = []
    var memberEntityChanges: [EntityChange<ChannelMember>] = []
    var userChanges: [[ListChange<User>]] = []
    /// Callbacks whose changes did not lead from the last list seen to the controller's list.
    var inconsistencies: [String] = []
    /// Whether `willChange` came with the old list still shown.
    var willChangeSawOldList = true

    private var channels: [Channel] = []
    private var messages: [Message] = []
    private var members: [ChannelMember] = []
    private var users: [User] = []
    private var waiters: [(condition: @MainActor () -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once `condition` holds (checked after every callback).
    func until(_ condition: @escaping @MainActor () -> Bool) async {
        if condition() { return }
        await withCheckedContinuation { waiters.append((condition, $0)) }
    }

    private func recorded() {
        let ready = waiters.filter { $0.condition() }
        waiters.removeAll { $0.condition() }
        for waiter in ready { waiter.continuation.resume() }
    }

    private func check<Item: Equatable>(
        _ changes: [ListChange<Item>], from old: inout [Item], to new: [Item], _ name: String
    ) {
        if ListChange.applying(changes, to: old) != new { inconsistencies.append("\(name): \(changes)") }
        old = new
    }

    func controller(_ controller: any DataController, didChangeState state: DataControllerState) {
        states.append(state)
        recorded()
    }

    func controllerWillChangeChannels(_ controller: ChatChannelListController) {
        willChangeChannels += 1
        if controller.channels != channels { willChangeSawOldList = false }
        recorded()
    }

    func controller(_ controller: ChatChannelListController, didChangeChannels changes: [ListChange<Channel>]) {
        check(changes, from: &channels, to: controller.channels, "channels")
        channelChanges.append(changes)
        recorded()
    }

    func channelController(_ channelController: ChatChannelController, didUpdateChannel channel: EntityChange<Channel>)
    {
        channelEntityChanges.append(channel)
        recorded()
    }

    func channelController(_ channelController: ChatChannelController, didUpdateMessages changes: [ListChange<Message>])
    {
        check(changes, from: &messages, to: channelController.messages, "messages")
        messageChanges.append(changes)
        recorded()
    }

    func channelController(_ channelController: ChatChannelController, didChangeTypingUsers typingUsers: Set<User>) {
        self.typingUsers.append(typingUsers)
        recorded()
    }

    func channelController(_ channelController: ChatChannelController, didReceiveMemberEvent event: MemberEvent) {
        memberEvents.append(event)
        recorded()
    }

    func memberListController(
        _ controller: ChatChannelMemberListController, didChangeMembers changes: [ListChange<ChannelMember>]
    ) {
        check(changes, from: &members, to: controller.members, "members")
        memberChanges.append(changes)
        recorded()
    }

    func memberController(
        _ controller: ChatChannelMemberController, didUpdateMember change: EntityChange<ChannelMember>
    ) {
        memberEntityChanges.append(change)
        recorded()
    }

    func controller(_ controller: ChatUserSearchController, didChangeUsers changes: [ListChange<User>]) {
        check(changes, from: &users, to: controller.userArray, "users")
        userChanges.append(changes)
        recorded()
    }
}

extension Array {
    /// The elements of the changes, flattened.
    func flattened<Item>() -> [ListChange<Item>] where Element == [ListChange<Item>] { flatMap { $0 } }
}

extension ListChange {
    var isInsert: Bool { if case .insert = self { true } else { false } }
    var isRemove: Bool { if case .remove = self { true } else { false } }
    var isUpdate: Bool { if case .update = self { true } else { false } }
}
