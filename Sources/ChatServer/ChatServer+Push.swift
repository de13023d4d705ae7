import ChatAPI

/// Push notifications on the server's side: where the pushes of each message go, and the
/// tokens users registered.
extension ChatServer {
    /// Hands the pushes of every message sent from now on to `sink` (`nil`: no pushes are
    /// decided, at no cost): one per registered device of each member away (no device connected
    /// on any node), notifications of the channel on, channel not muted, sender excluded. On a
    /// cluster, each node hands the pushes of the messages written through it: one push per
    /// message and device across the cluster.
    public func deliverPushes(to sink: (any PushSink)?) {
        engine.core.withLock { $0.pushSink = sink }
    }

    /// Forgets `device`, a push token of `userId` that its provider said is gone (APNs' 410,
    /// FCM's `UNREGISTERED`), on every node of a cluster.
    ///
    /// - Throws: `notFound` when `userId` no longer holds the token (removed, or moved to
    ///   another user meanwhile: then it is kept).
    public func removePushDevice(_ device: PushDevice, of userId: String) async throws {
        _ = try await engine.console(.removePushDevice(userId: userId, device))
    }

    /// The push tokens `userId` registered (from any device), by provider and token.
    ///
    /// - Complexity: O(tokens of the user × log of that).
    public func pushDevices(userId: String) -> [PushDevice] {
        engine.read { state, _ in state.pushRegistrations(of: userId).map(\.device) }
    }
}
