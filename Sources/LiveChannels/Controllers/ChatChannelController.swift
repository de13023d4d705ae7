import ChatAPI
import Foundation
import LiveCore

/// Told about a ``ChatChannelController``'s changes, on the main actor. Every method has an
/// empty default implementation.
@MainActor
public protocol ChatChannelControllerDelegate: DataControllerStateDelegate {
    /// The channel appeared (`.create`, the first value), changed (`.update`) or is gone for
    /// this user (`.remove`: deleted, or no longer visible to them); `channel` already shows it.
    func channelController(_ channelController: ChatChannelController, didUpdateChannel channel: EntityChange<Channel>)
    /// The messages changed (newest first); `channelController.messages` already shows the
    /// new list. One batch update, ordered as ``ListChange`` documents.
    func channelController(_ channelController: ChatChannelController, didUpdateMessages changes: [ListChange<Message>])
    /// Who else is typing changed; `typingUsers` already shows it.
    func channelController(_ channelController: ChatChannelController, didChangeTypingUsers typingUsers: Set<User>)
    /// A member joined, was added, changed, left or was removed.
    func channelController(_ channelController: ChatChannelController, didReceiveMemberEvent event: MemberEvent)
}

extension ChatChannelControllerDelegate {
    public func channelController(
        _ channelController: ChatChannelController, didUpdateChannel channel: EntityChange<Channel>
    ) {}
    public func channelController(
        _ channelController: ChatChannelController, didUpdateMessages changes: [ListChange<Message>]
    ) {}
    public func channelController(
        _ channelController: ChatChannelController, didChangeTypingUsers typingUsers: Set<User>
    ) {}
    public func channelController(_ channelController: ChatChannelController, didReceiveMemberEvent event: MemberEvent)
    {}
}

/// One channel as one object (Stream's `ChatChannelController`): the channel, its messages
/// (newest first), who is typing and member events — over the same live handles as
/// `ChannelRepository.getChannel`, `MessageRepository.getMessages`/`getTypingUsers` and
/// `ChannelParticipation.getMembers` — and the actions on it (send, type, read, add and remove
/// members).
///
/// Loads nothing before ``synchronize(_:)``. A direct-message controller
/// (`client.channelController(createDirectMessageChannelWith:...)`) creates or opens its
/// conversation then; until it has, ``channelId`` is `nil` and actions fail with
/// `ChatError.notFound`. Main-actor; keeps its client alive; the delegate is held weakly.
@MainActor
public final class ChatChannelController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// The channel's id; `nil` for a direct-message controller until `synchronize` created or
    /// opened its conversation.
    public private(set) var channelId: String?
    /// Told about changes; held weakly.
    public weak var delegate: (any ChatChannelControllerDelegate)?
    /// Where the data comes from (the channel's; see ``DataControllerState``).
    public var state: DataControllerState { lifecycle.state }
    /// The channel as last delivered (its last value after a `.remove`); `nil` before it loaded.
    public private(set) var channel: Channel?
    /// Who else (not the current user) is typing in the channel. A typing user whose profile
    /// is not loaded yet appears once it is.
    public private(set) var typingUsers: Set<User> = []
    /// Messages per page of ``messages``.
    public let messagesPageSize: Int
    /// How often ``keystroke(_:)`` renews the typing indicator while keystrokes go on (the
    /// server's indicator lasts 5 s by default).
    public var typingRenewalInterval: Duration = .seconds(3)

    /// The channel's loaded messages, newest first (index 0 is the newest), as Stream shows
    /// them. ``loadPreviousMessages(limit:completion:)`` appends older ones at the end.
    public var messages: [Message] { messageBinding.items }

    /// Whether the oldest message is loaded. `false` before `synchronize`.
    public var hasLoadedAllPreviousMessages: Bool { messageBinding.isStarted && !messageBinding.hasMore }

    private let directMessageDraft: ChannelDraft?
    let messageBinding = LiveListBinding<Message>(newestFirst: true)
    private let channelBinding = LiveObjectBinding<Channel>()
    private let lifecycle = ControllerLifecycle()
    /// Whether the channel is gone for this user (a `.remove` was delivered).
    private var isRemoved = false
    private var typingToken: NotificationToken?
    private var typingIds: Set<String> = []
    private var typingProfiles: [String: (user: LiveObject<User>, token: NotificationToken)] = [:]
    private var memberList: LiveCollection<ChannelMember>?
    private var memberToken: NotificationToken?
    private var members: [ChannelMember] = []
    private var membersLoaded = false
    /// When the typing indicator was last started (or renewed) by this controller.
    var typingStartedAt: ContinuousClock.Instant?
    /// The typing requests, sent in the order they were made.
    let typingRequests = RequestSequence()
    /// The time, for typing renewals (injected by tests).
    var now: () -> ContinuousClock.Instant = { ContinuousClock.now }

    init(client: ChatClient, channelId: String?, directMessageDraft: ChannelDraft? = nil, messagesPageSize: Int = 25) {
        self.client = client
        self.channelId = channelId
        self.directMessageDraft = directMessageDraft
        self.messagesPageSize = messagesPageSize
        messageBinding.didChange = { [unowned self] changes in
            delegate?.channelController(self, didUpdateMessages: changes)
        }
        channelBinding.didDeliver = { [unowned self] object in channelDidChange(object) }
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
    }

    // MARK: Synchronize

    /// Loads the channel and its newest messages and follows them; `completion` (main actor)
    /// gets `nil` once they are shown, or the error. A direct-message controller creates or
    /// opens its conversation first.
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await synchronize() }
    }

    /// Loads the channel and its newest messages; returns once `channel` and `messages` show
    /// the server's data.
    /// - Throws: `ChatError.notFound` (no such channel, or not visible), the conversation's
    ///   creation errors (`.invalidArgument` for unknown users), `.unavailable`.
    public func synchronize() async throws {
        try await lifecycle.synchronize(
            client: client, start: { [self] in try await start() },
            settled: { [self] in
                await messageBinding.settled()
                await channelBinding.settled()
            },
            failure: { [self] in loadError })
    }

    private func start() async throws {
        let channelId: String
        if let id = self.channelId {
            channelId = id
        } else if let draft = directMessageDraft {
            do {
                channelId = try await ChannelRepository(client: client).createChannel(draft).channelId
            } catch {
                lifecycle.enter(.localDataFetched)
                lifecycle.enter(.remoteDataFetchFailed(ChatError(error)))
                throw error
            }
            self.channelId = channelId
        } else {
            throw ChatError.invalidArgument(field: "channelId", reason: "no channel")
        }
        channelBinding.start(ChannelRepository(client: client).getChannel(channelId))
        messageBinding.start(
            MessageRepository(client: client).pagedMessages(channelId: channelId, pageSize: messagesPageSize))

        typingToken = MessageRepository(client: client).getTypingUsers(channelId: channelId).observe {
            [weak self] typing, _ in
            self?.typingIdsDidChange(typing.snapshot ?? [])
        }

        // The most recently joined members: new members enter at the top, so every join is seen.
        let members = ChannelParticipation(client: client, channelId: channelId).getMembers(
            filter: .all, sortBy: .lastCreated, roles: [], pageSize: ChannelListQuery.maximumPageSize)
        memberList = members
        memberToken = members.observe { [weak self] members, change, _ in self?.membersDidChange(members, change) }

        await messageBinding.load(limit: nil)
    }

    /// The channel's error, or the messages' for a member.
    private var loadError: (any Error)? {
        if let error = channelBinding.loadError { return error }
        if let error = messageBinding.loadError, channel?.currentUserMembership == .member { return error }
        return nil
    }

    // MARK: Deliveries

    /// Whether `channel` is gone for this user: deleted, or no longer visible to them.
    private func isGone(_ channel: Channel) -> Bool {
        channel.isDeleted || !ChannelListSpec.isVisible(channel, to: client.queryContext)
    }

    private func channelDidChange(_ object: LiveObject<Channel>) {
        lifecycle.follow(dataStatus: object.dataStatus, loadingStatus: object.loadingStatus, error: object.error)
        let old = channel
        var change: EntityChange<Channel>?
        if let new = object.snapshot {
            channel = new
            if old == nil || isRemoved {
                if !isGone(new) {
                    isRemoved = false
                    change = .create(new)
                }
            } else if isGone(new) {
                isRemoved = true
                change = .remove(new)
            } else if new != old {
                change = .update(new)
            }
        }
        if let old, !isRemoved, object.loadingStatus == .error, case .notFound? = object.error as? ChatError {
            isRemoved = true
            change = .remove(old)
        }
        if let change { delegate?.channelController(self, didUpdateChannel: change) }
    }

    private func typingIdsDidChange(_ ids: Set<String>) {
        typingIds = ids.subtracting([client.currentUserId])
        for id in typingIds where typingProfiles[id] == nil {
            let user = UserRepository(client: client).getUser(id)
            let token = user.observe { [weak self] _, _ in self?.refreshTypingUsers() }
            typingProfiles[id] = (user, token)
        }
        refreshTypingUsers()
    }

    private func refreshTypingUsers() {
        let users = Set(typingIds.compactMap { typingProfiles[$0]?.user.snapshot })
        guard users != typingUsers else { return }
        typingUsers = users
        delegate?.channelController(self, didChangeTypingUsers: users)
    }

    private func membersDidChange(_ list: LiveCollection<ChannelMember>, _ change: CollectionChange?) {
        let new = list.snapshots
        defer { members = new }
        // Member events start once the first page is shown: loading it is not members joining.
        guard membersLoaded else {
            membersLoaded = list.dataStatus == .fresh && list.loadingStatus != .loading
            return
        }
        guard let change else { return }
        var events: [MemberEvent] = change.deletions.map { .removed(userId: members[$0].userId) }
        events += change.insertions.map { .added(new[$0]) }
        events += change.modificationsInNew.map { .updated(new[$0]) }
        events += change.moves.filter(\.isModified).map { .updated(new[$0.to]) }
        for event in events { delegate?.channelController(self, didReceiveMemberEvent: event) }
    }
}
