import ChatServer
import Logging
import ServiceLifecycle

/// The service that drains a node's ``PushQueue`` to its providers: up to ``concurrency``
/// pushes in flight, each tried up to ``attempts`` times with a doubling wait (0.5 s, 1 s, 2 s…)
/// while the provider answers 429 or 5xx or cannot be reached; a device the provider says is gone
/// is removed through the log (``ChatServer/removePushDevice(_:of:)``), so every node agrees.
/// Counted in `/metrics`: `chat_push_sent_total{provider,result}`, `chat_push_queue_depth`.
/// Stops at graceful shutdown (what still waits is dropped).
struct PushDelivery: Service {
    let queue: PushQueue
    let providers: [any PushProvider]
    let server: ChatServer
    let metrics: GatewayMetrics
    let logger: Logger
    var concurrency = 16
    var attempts = 5
    var firstWait: Duration = .milliseconds(500)

    func run() async throws {
        let queue = queue
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await drain(queue)
            } onCancel: {
                queue.finish()
            }
        } onGracefulShutdown: {
            queue.finish()
        }
    }

    /// Sends what the queue gives until it is finished.
    private func drain(_ queue: PushQueue) async {
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while let push = await queue.next() {
                metrics.pushQueueDepth(queue.depth, dropped: queue.dropped)
                if inFlight >= concurrency {
                    await group.next()
                    inFlight -= 1
                }
                inFlight += 1
                group.addTask { await deliver(push) }
            }
            // Shutting down: the pushes in flight stop retrying.
            group.cancelAll()
        }
    }

    private func deliver(_ push: PushNotification) async {
        for provider in providers where provider.handles(push.device) {
            var wait = firstWait
            var outcome = PushOutcome.retry
            for attempt in 1...attempts {
                outcome = await provider.send(push)
                if outcome != .retry || attempt == attempts || Task.isCancelled { break }
                try? await Task.sleep(for: wait)
                wait *= 2
            }
            metrics.pushSent(provider: provider.name, result: "\(outcome)")
            if outcome == .gone {
                logger.info(
                    "push device gone", metadata: ["provider": "\(provider.name)", "user": "\(push.userId)"])
                try? await server.removePushDevice(push.device, of: push.userId)
            }
        }
    }
}
