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
    public func currentUserController(
        _ controller: CurrentChatUserController, didChangeCurrentUser change: EntityChange<User>
    ) {}
    public func currentUserController(
        _ controller: CurrentChatUserController, didChangeCurrentUserUnreadCount count: Int
    ) {}
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
    public var state: DataControllerState { lifecycle.state }
    /// The current user's profile; `nil` before `synchronize`.
    public private(set) var currentUser: User?
    /// The number of messages the user has yet to read, over every channel they are a member
    /// of; 0 before `synchronize`.
    public private(set) var unreadCount = 0

    private let user = LiveObjectBinding<User>()
    private let lifecycle = ControllerLifecycle()
    private var unread: LiveObject<Int>?
    private var unreadToken: NotificationToken?

    init(client: ChatClient) {
        self.client = client
        user.didDeliver = { [unowned self] object in
            lifecycle.follow(dataStatus: object.dataStatus, loadingStatus: object.loadingStatus, error: object.error)
            userDidChange(object.snapshot)
        }
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
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
        try await lifecycle.synchronize(
            client: client,
            start: { [self] in
                user.start(UserRepository(client: client).getUser(client.currentUserId))
                let unread = ChannelRepository(client: client).getTotalUnreadCount()
                self.unread = unread
                unreadToken = unread.observe { [weak self] unread, _ in self?.unreadDidChange(unread.snapshot ?? 0) }
            },
            settled: { await user.settled() }, failure: { user.loadError })
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
        guard user.isStarted else { return }
        await user.waitUntil { [unowned self] in (currentUser?.version ?? -1) >= updated.version }
    }

    // MARK: Push devices

    /// Registers `device` (`.apn(token:)` with the token `UIApplicationDelegate` gets, or
    /// `.firebase(token:)`) for the current user, Stream style; `completion` (main actor) gets
    /// `nil` once the server has it, or the error. A token another user registered moves to
    /// this one.
    public func addDevice(_ device: PushDevice, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await addDevice(device) }
    }

    /// The async form of ``addDevice(_:completion:)``.
    public func addDevice(_ device: PushDevice) async throws {
        try await client.addPushDevice(device)
    }

    /// Removes the current user's push device whose ``PushDevice/id`` is `id` (hex for APNs),
    /// whichever device registered it; `completion` (main actor) gets `nil`, or the error
    /// (`ChatError.notFound` for a token the user does not have).
    public func removeDevice(id: String, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await removeDevice(id: id) }
    }

    /// The async form of ``removeDevice(id:completion:)``.
    public func removeDevice(id: String) async throws {
        try await client.removePushDevice(id: id)
    }

    // MARK: Deliveries

    private func userDidChange(_ new: User?) {
        let old = currentUser
        currentUser = new
        if let new, old != new {
            delegate?.currentUserController(self, didChangeCurrentUser: old == nil ? .create(new) : .update(new))
        }
    }

    private func unreadDidChange(_ count: Int) {
        guard count != unreadCount else { return }
        unreadCount = count
        delegate?.currentUserController(self, didChangeCurrentUserUnreadCount: count)
    }
}
