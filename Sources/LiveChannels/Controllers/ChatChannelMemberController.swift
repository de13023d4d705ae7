import ChatAPI
import LiveCore

/// Told about a ``ChatChannelMemberController``'s changes, on the main actor. Every method has
/// an empty default implementation.
@MainActor
public protocol ChatChannelMemberControllerDelegate: DataControllerStateDelegate {
    /// The member appeared (`.create`: the first value, or the user became a member again),
    /// changed (`.update`: roles, mute, read marker, profile or presence) or is no longer a
    /// member (`.remove`: left, removed or banned); `controller.member` already shows it.
    func memberController(
        _ controller: ChatChannelMemberController, didUpdateMember change: EntityChange<ChannelMember>)
}

extension ChatChannelMemberControllerDelegate {
    public func memberController(
        _ controller: ChatChannelMemberController, didUpdateMember change: EntityChange<ChannelMember>
    ) {}
}

/// One member of one channel (Stream's `ChatChannelMemberController`), over a member list of
/// that channel restricted to the user: it shows the member while the user is a member.
///
/// Loads nothing before ``synchronize(_:)``. Main-actor; keeps its client alive; the delegate
/// is held weakly.
@MainActor
public final class ChatChannelMemberController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// The member's user id.
    public let userId: String
    /// The channel.
    public let channelId: String
    /// Told about changes; held weakly.
    public weak var delegate: (any ChatChannelMemberControllerDelegate)?
    /// Where the data comes from (see ``DataControllerState``).
    public var state: DataControllerState { lifecycle.state }
    /// The member, while the user is a member of the channel; `nil` before `synchronize` and
    /// after a `.remove`.
    public private(set) var member: ChannelMember?

    private let binding = LiveListBinding<ChannelMember>()
    private let lifecycle = ControllerLifecycle()

    init(client: ChatClient, userId: String, channelId: String) {
        self.client = client
        self.userId = userId
        self.channelId = channelId
        binding.didDeliver = { [unowned self] list, _ in
            lifecycle.follow(list)
            memberDidChange(list.snapshots.first)
        }
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
    }

    /// Loads the member and follows it; `completion` (main actor) gets `nil` once it is shown
    /// (`member` is `nil` for a user who is not a member), or the error (`.notFound` for a
    /// channel the user cannot see).
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await synchronize() }
    }

    /// Loads the member; returns once `member` shows the server's value.
    public func synchronize() async throws {
        try await lifecycle.synchronize(binding, client: client) { [self] in
            ChannelParticipation(client: client, channelId: channelId).pagedMembers(
                MemberListQuery(channelId: channelId, pageSize: 1, userIds: [userId]))
        }
    }

    private func memberDidChange(_ new: ChannelMember?) {
        let old = member
        member = new
        let change: EntityChange<ChannelMember>? =
            switch (old, new) {
            case (nil, let new?): .create(new)
            case (let old?, nil): .remove(old)
            case (let old?, let new?) where old != new: .update(new)
            default: nil
            }
        if let change { delegate?.memberController(self, didUpdateMember: change) }
    }
}
