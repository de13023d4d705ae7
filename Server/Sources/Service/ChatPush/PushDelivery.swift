import ChatAPI
import ChatGateway
import ChatServer
import Logging
import ServiceLifecycle

/// The service that drains a node's ``PushLanes`` to their providers, each provider apart: up to
/// ``concurrency`` pushes in flight per provider (a webhook that stops answering holds its own
/// slots, never APNs' or FCM's), each tried up to ``attempts`` times while the provider answers
/// ``PushOutcome/retry`` — waiting what its `Retry-After` asks (up to ``longestWait``; a longer
/// one ends the tries), else a doubling wait (0.5 s, 1 s, 2 s, 4 s) with jitter (each between
/// half and one and a half times that, so the pushes of one failure do not come back together).
/// A device the provider says is gone is removed through the log
/// (``ChatServer/removePushDevice(_:of:)``), so every node agrees.
///
/// Counted in `/metrics`: `chat_push_reasons_total{provider,result,reason}` (``PushResult/reason``),
/// `chat_push_queue_depth`, `chat_push_dropped_total`. A push that fails (refused, or still
/// failing after its last try) is logged at `warning` with its provider, reason, status and
/// what it means, the user and the first characters of the device token (never a credential);
/// a gone device at `info`. Stops at graceful shutdown (what still waits is dropped).
public struct PushDelivery: Service {
    let lanes: PushLanes
    /// Forgets a device its provider said is gone.
    let removeDevice: @Sendable (PushDevice, _ userId: String) async throws -> Void
    let metrics: GatewayMetrics
    let logger: Logger
    /// The pushes in flight at once, per provider.
    var concurrency = 16
    var attempts = 5
    var firstWait: Duration = .milliseconds(500)
    /// The longest `Retry-After` waited for; a provider asking for more fails the push.
    var longestWait: Duration = .seconds(60)
    /// Waits between tries (`Task.sleep`; tests record the waits chosen).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// A number in 0..<1 drawn for each wait's jitter.
    var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// The delivery of `lanes`' pushes, removing through `server` the devices their providers
    /// say are gone, counted in `metrics`.
    public init(lanes: PushLanes, server: ChatServer, metrics: GatewayMetrics, logger: Logger) {
        self.init(
            lanes: lanes, removeDevice: { [server] in try await server.removePushDevice($0, of: $1) },
            metrics: metrics, logger: logger)
    }

    /// The delivery with `removeDevice` for the server's removal (tests).
    init(
        lanes: PushLanes, removeDevice: @escaping @Sendable (PushDevice, _ userId: String) async throws -> Void,
        metrics: GatewayMetrics, logger: Logger
    ) {
        self.lanes = lanes
        self.removeDevice = removeDevice
        self.metrics = metrics
        self.logger = logger
    }

    public func run() async throws {
        let lanes = lanes
        // The lanes in a task of their own, cancelled at shutdown: a lane whose slots are all
        // held by a provider that does not answer stops at once, not after its tries.
        let work = Task {
            await withTaskGroup(of: Void.self) { group in
                for lane in lanes.lanes {
                    group.addTask { await drain(lane) }
                }
            }
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await work.value
            } onCancel: {
                lanes.finish()
                work.cancel()
            }
        } onGracefulShutdown: {
            lanes.finish()
            work.cancel()
        }
    }

    /// Sends what `lane`'s queue gives until it is finished.
    private func drain(_ lane: PushLanes.Lane) async {
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while let push = await lane.queue.next() {
                metrics.pushQueueDepth(lanes.depth, dropped: lanes.dropped)
                if inFlight >= concurrency {
                    await group.next()
                    inFlight -= 1
                }
                inFlight += 1
                group.addTask { await deliver(push, through: lane.provider) }
            }
            // Shutting down: the pushes in flight stop retrying.
            group.cancelAll()
        }
    }

    /// The wait before the try after the `attempt`-th, which the provider answered with
    /// `retryAfter` (`nil`: no more tries, the provider asked for longer than ``longestWait``).
    func wait(after attempt: Int, retryAfter: Duration?) -> Duration? {
        if let retryAfter {
            guard retryAfter <= longestWait else { return nil }
            // Never before what the provider asked; up to a tenth later.
            return retryAfter + retryAfter * (jitter() / 10)
        }
        let base = firstWait * (1 << min(attempt - 1, 16))
        return base * (0.5 + jitter())
    }

    func deliver(_ push: PushNotification, through provider: any PushProvider) async {
        var result = PushResult(.retry, reason: PushResult.noAnswer)
        var tries = 0
        for attempt in 1...attempts {
            tries = attempt
            result = await provider.deliver(push)
            guard result.outcome == .retry, attempt < attempts, !Task.isCancelled,
                let wait = wait(after: attempt, retryAfter: result.retryAfter)
            else { break }
            logger.debug(
                "push retried",
                metadata: metadata(push, provider, result, tries: attempt).merging(["wait": "\(wait)"]) { $1 })
            do { try await sleep(wait) } catch { break }
        }
        metrics.pushSent(provider: provider.name, result: "\(result.outcome)", reason: result.reason)
        switch result.outcome {
        case .sent: break
        case .gone:
            logger.info("push device gone", metadata: metadata(push, provider, result, tries: tries))
            do {
                try await removeDevice(push.device, push.userId)
            } catch ChatError.notFound {
                // The user no longer holds the token (removed, or moved meanwhile): nothing to do.
            } catch {
                // Kept: the next push to it finds it gone again and tries again.
                var details = metadata(push, provider, result, tries: tries)
                details["error"] = "\(error)"
                logger.warning("push device gone but not removed", metadata: details)
            }
        case .failed, .retry:
            var details = metadata(push, provider, result, tries: tries)
            if let hint = Self.hint(for: result.reason) { details["meaning"] = "\(hint)" }
            logger.warning("push failed", metadata: details)
        }
    }

    /// What a log line says of a push: never a credential, and of the device token only its
    /// first 8 characters (enough to find it among a user's).
    private func metadata(
        _ push: PushNotification, _ provider: any PushProvider, _ result: PushResult, tries: Int
    ) -> Logger.Metadata {
        [
            "provider": "\(provider.name)", "result": "\(result.outcome)", "reason": "\(result.reason)",
            "status": "\(result.status.map(String.init) ?? "none")", "tries": "\(tries)", "user": "\(push.userId)",
            "device": "\(push.device.provider.rawValue):\(push.device.id.prefix(8))…",
            "channel": "\(push.channelId)", "message": "\(push.messageId)",
        ]
    }

    /// What a failure's reason means for an operator, for the reasons that call for one of their
    /// acts (Operating.md lists them all).
    static func hint(for reason: String) -> String? {
        switch reason {
        case "InvalidProviderToken", "UnrelatedKeyIdInToken", "MissingProviderToken":
            "APNs refuses the provider token: --apns-key-file, --apns-key-id or --apns-team-id is wrong"
        case "BadTopic", "TopicDisallowed", "DeviceTokenNotForTopic":
            "APNs: --apns-topic is not the app's bundle id, or the key may not push to it"
        case "BadEnvironmentKeyInToken", "BadCertificateEnvironment":
            "APNs: the key is not for this endpoint (--apns-sandbox)"
        case "TooManyProviderTokenUpdates":
            "APNs: provider tokens made too often (nodes signing their own)"
        case "PayloadTooLarge": "the payload is over the provider's limit"
        case "InternalServerError", "ServiceUnavailable", "Shutdown":
            "APNs is failing: this push is dropped (Apple asks to wait 15 minutes before trying again)"
        case "THIRD_PARTY_AUTH_ERROR":
            "Firebase cannot reach APNs: the APNs key or certificate in the Firebase project is wrong"
        case "SENDER_ID_MISMATCH": "FCM: the token belongs to another Firebase project"
        case "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED", "TooManyRequests", "http429":
            "the provider throttles: pushes still failing after their last try"
        case "UNAVAILABLE", "INTERNAL", "http500", "http502", "http503", "http504", "http5xx":
            "the provider is failing: still failing after the last try"
        case "UNAUTHENTICATED", "PERMISSION_DENIED":
            "FCM refuses the service account (its role, or the project)"
        case PushResult.credential: "no credential: the token endpoint refuses the service account"
        case PushResult.noAnswer: "no answer within 10 s, or no connection"
        default: nil
        }
    }
}
