import ChatGateway
import ChatServer

/// The pushes of a node, one ``PushQueue`` per provider: the sink the server hands each
/// message's pushes to (``PushSink``), which puts each push in the queue of every provider that
/// handles its device. Each queue is bounded and drained apart (``PushDelivery``), so a provider
/// that is slow or down fills and drops only its own.
public final class PushLanes: PushSink, Sendable {
    /// A provider and its queue.
    struct Lane: Sendable {
        let provider: any PushProvider
        let queue: PushQueue
    }

    let lanes: [Lane]

    /// A lane for each of `providers`, each queue holding at most `capacity` pushes.
    public init(providers: [any PushProvider], capacity: Int = 10_000) {
        lanes = providers.map { Lane(provider: $0, queue: PushQueue(capacity: capacity)) }
    }

    /// - Complexity: O(`notifications` × providers); called under the server's lock.
    public func enqueue(_ notifications: [PushNotification]) {
        for lane in lanes {
            let handled = notifications.filter { lane.provider.handles($0.device) }
            if !handled.isEmpty { lane.queue.enqueue(handled) }
        }
    }

    /// How many pushes wait, in every lane.
    public var depth: Int { lanes.reduce(0) { $0 + $1.queue.depth } }
    /// How many were dropped because a lane was full, in every lane.
    public var dropped: Int { lanes.reduce(0) { $0 + $1.queue.dropped } }

    /// ``depth`` and ``dropped`` as the gateway's `/metrics` reads them.
    public var counts: PushQueueCounts { { (self.depth, self.dropped) } }

    /// Ends every lane's ``PushQueue/next()``.
    func finish() {
        for lane in lanes { lane.queue.finish() }
    }
}
