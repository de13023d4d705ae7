import ChatAPI
import LiveCore
import Synchronization

/// The client's cache of users and the live handles that show them.
///
/// Mutated only by the SyncEngine (inside its actor: event application, and response
/// application through `SyncEngine.run(_:)`), read from any thread.
final class UserCache: Sendable {
    /// Applies one server event (already de-duplicated and in order) and publishes the result.
    func apply(_ event: ChatEvent) {}
}
