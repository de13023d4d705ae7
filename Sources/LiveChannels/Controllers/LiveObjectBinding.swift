import ChatAPI
import LiveCore

/// What object controllers share, the twin of ``LiveListBinding``: one live object shown as a
/// value, its deliveries told to the controller, and waits until it shows the object's newest
/// state. Owns no data: ``value`` is the object's snapshot as last delivered.
///
/// Main-actor: the object is observed on the main actor, where the controllers live.
@MainActor
final class LiveObjectBinding<Entity: Equatable & Sendable> {
    /// The object's snapshot as of the last delivery (`nil` before one, or while it has none).
    private(set) var value: Entity?
    /// The object, once started.
    private(set) var object: LiveObject<Entity>?
    private var token: NotificationToken?
    /// The loading status of the last delivery.
    private var deliveredLoading: LoadingStatus?
    /// Waits for a delivery after which their condition holds.
    private var waiters: [(condition: @MainActor () -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Called after every delivery, `value` already showing it.
    var didDeliver: ((LiveObject<Entity>) -> Void)?

    var isStarted: Bool { object != nil }

    /// Starts showing `object`.
    func start(_ object: LiveObject<Entity>) {
        self.object = object
        token = object.observe { [weak self] object, _ in self?.deliver(object) }
    }

    /// Whether the value shown is the object's newest and it is not loading (or failed).
    var isSettled: Bool {
        guard let object, let deliveredLoading, deliveredLoading != .loading, object.loadingStatus != .loading
        else { return false }
        return value == object.snapshot
    }

    /// Returns once the binding shows the object's newest state and it is not loading (at once
    /// when it does already).
    func settled() async {
        await waitUntil { [unowned self] in isSettled }
    }

    /// Returns once `condition` holds: checked now, then after every delivery.
    func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
        guard !condition() else { return }
        await withCheckedContinuation { waiters.append((condition, $0)) }
    }

    /// The error of the object's last load, if it failed.
    var loadError: (any Error)? {
        guard let object, object.loadingStatus == .error || object.dataStatus == .error else { return nil }
        return object.error ?? ChatError.unavailable("the object could not load")
    }

    private func deliver(_ object: LiveObject<Entity>) {
        value = object.snapshot
        deliveredLoading = object.loadingStatus
        didDeliver?(object)
        guard !waiters.isEmpty else { return }
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting {
            if waiter.condition() { waiter.continuation.resume() } else { waiters.append(waiter) }
        }
    }
}
