import ChatAPI
import ChatServer

/// Delivers pushes to one provider (APNs, FCM, an operator's webhook).
public protocol PushProvider: Sendable {
    /// The name metrics and logs use (`webhook`, `apns`, `fcm`).
    var name: String { get }
    /// Whether it delivers pushes for `device` (APNs' tokens go to APNs, and so on).
    func handles(_ device: PushDevice) -> Bool
    /// Sends one push and says how it went. Never throws: a failure is an outcome.
    func send(_ notification: PushNotification) async -> PushOutcome
}

/// How a push went.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted by the provider.
    case sent
    /// The provider says the device is gone: the token is removed.
    case gone
    /// Worth trying again later (429, 5xx, a connection that failed).
    case retry
    /// Refused for good (another 4xx): dropped.
    case failed
}
