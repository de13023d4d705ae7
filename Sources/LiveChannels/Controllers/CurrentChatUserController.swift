import ChatAPI
import LiveCore

/// Told about a ``CurrentChatUserController``'s changes, on the main actor. Every method has an
/// empty default implementation.
@MainActor
public protocol CurrentChatUserControllerDelegate: DataControllerStateDelegate {
    /// The current user's profile appeared (`.create`) or changed (`.update`: display name,
    /// metadata, presence); `controller.currentUser` already shows it.
    func currentUserController(_ controller: CurrentChatUserController, didChangeCurrentUser change: EntityChange<User>)
    /// The total unread count changed; `controller.unreadCount` already shows it.
    func currentUserController(_ controller: CurrentChatUserController, didChangeCurrentUserUnreadCount count: Int)
}

extension CurrentChatUserControllerDelegate {
    public func currentUserController(_ controller: CurrentChatUserController, didChangeCurrentUser change: EntityChange<User>) {}
    public func currentUserController(_ controller: CurrentChatUserController, didChangeCurrentUserUnreadCount count: Int) {}
}

/// The signed-in user (Stream's `CurrentChatUserController`): their profile and total unread
/// count, live, and the profile's update.
///
/// Loads nothing before ``synchronize(_:)``. Main-actor; keeps its client alive; the delegate
/// is held weakly. Over the same live values as `UserRepository.getUser(_:)` and
/// `ChannelRepository.getTotalUnreadCount()`.
@MainActor
public final class CurrentChatUserController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// Told about changes; held weakly.
    public weak var delegate: (any CurrentChatUserControllerDelegate)?
    /// Where the data comes from (see ``DataControllerState``).
    public private(set) var state: DataControllerState = .initialized
    /// The current user's profile; `nil` before `synchronize`.
    public private(set) var currentUser: User?
    /// The number of messages the user has yet to read, over every channel they are a member
    /// of; 0 before `synchronize`.
    public private(set) var unreadCount = 0

    private var user: LiveObject<User>?
    private var unread: LiveObject<Int>?
    private var tokens: [NotificationToken] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(client: ChatClient) {
        self.client = client
    }

    /// Loads the profile and follows it and the unread count; `completion` (main actor) gets
    /// `nil` once the server's profile is shown, or the error.
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await synchronize() }
    }

    /// Loads the profile; returns once ``currentUser`` shows the server's value. A repeated
    /// call after a failure asks the server again.
    /// - Throws: `ChatError` (`.unavailable` when not connected, ...).
    public func synchronize() async throws {
        if let user {
            if user.loadingStatus == .error { await client.retryFailedLoads() }
        } else {
            let user = UserRepository(client: client).getUser(client.currentUserId)
            let unread = ChannelRepository(client: client).getTotalUnreadCount()
            self.user = user
            self.unread = unread
            tokens = [
                user.observe { [weak self] user, _ in self?.userDidChange(user) },
                unread.observe { [weak self] unread, _ in self?.unreadDidChange(unread.snapshot ?? 0) },
            ]
        }
        await settled()
        if let user, user.loadingStatus == .error || user.dataStatus == .error {
            throw user.error ?? ChatError.unavailable("the current user could not load")
        }
    }

    /// Updates the current user's display name (and metadata, when given); `completion` (main
    /// actor) gets `nil` once ``currentUser`` shows it, or the error.
    public func updateUserData(
        name: String?, extraData: [String: JSON]? = nil, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil
    ) {
        report(to: completion) { [self] in try await updateCurrentUser(name: name, extraData: extraData) }
    }

    /// The async form of ``updateUserData(name:extraData:completion:)``: returns once
    /// ``currentUser`` shows the change (when synchronized).
    /// - Throws: `ChatError.invalidArgument` for a bad name or metadata.
    public func updateCurrentUser(name: String?, extraData: [String: JSON]? = nil) async throws {
        let updated = try await UserRepository(client: client).updateCurrentUser(displayName: name, metadata: extraData)
        guard user != nil else { return }
        while (currentUser?.version ?? -1) < updated.version { await nextDelivery() }
    }

    // MARK: Deliveries

    private var isSettled: Bool {
        guard let user, user.loadingStatus != .loading else { return false }
        return currentUser == user.snapshot || user.loadingStatus == .error
    }

    private func settled() async {
        while !isSettled { await nextDelivery() }
    }

    private func nextDelivery() async {
        await withCheckedContinuation { waiters.append($0) }
    }

    private func userDidChange(_ object: LiveObject<User>) {
        for next in state.transitions(dataStatus: object.dataStatus, loadingStatus: object.loadingStatus, error: object.error) {
            state = next
            delegate?.controller(self, didChangeState: next)
        }
        let old = currentUser
        currentUser = object.snapshot
        if let new = currentUser, old != new {
            delegate?.currentUserController(self, didChangeCurrentUser: old == nil ? .create(new) : .update(new))
        }
        resumeWaiters()
    }

    private func unreadDidChange(_ count: Int) {
        guard count != unreadCount else { return }
        unreadCount = count
        delegate?.currentUserController(self, didChangeCurrentUserUnreadCount: count)
    }

    private func resumeWaiters() {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }
}
