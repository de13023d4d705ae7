import ChatAPI
import Foundation

/// The rate limits of one server, kept with its state under the lock: a request bucket per
/// device, a message bucket and a channel-creation bucket per user, and each device's run of
/// refused requests (``ServerConfiguration/requestsPerSecond``,
/// ``ServerConfiguration/messagesPerSecond``, ``ServerConfiguration/channelsPerUserPerHour``).
///
/// Console calls never pass here. Buckets that are full again are dropped now and then, so
/// memory follows the devices and users that are busy, not all that ever were.
struct ServerLimits: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    /// The refusals in a row (since the device's last accepted request) after which a device
    /// is disconnected (wire close 4008).
    static let refusalsBeforeClose = 100

    let configuration: ServerConfiguration
    private var requestBuckets: [DeviceKey: TokenBucket] = [:]
    private var refusals: [DeviceKey: Int] = [:]
    private var messageBuckets: [String: TokenBucket] = [:]
    private var channelBuckets: [String: TokenBucket] = [:]
    private var nextSweep = Date.distantPast

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// What ``admit(_:from:now:)`` decided.
    enum Refusal: Error, Sendable {
        /// Refuse the request with this error.
        case refuse(ChatError)
        /// Refuse it, and disconnect the device: it kept going past ``refusalsBeforeClose``.
        case refuseAndDisconnect(ChatError)
    }

    /// Admits a request of `device` or refuses it: every request takes a token of the device's
    /// bucket; a send or edit also needs one of the user's message bucket, a channel creation
    /// one of the user's creation bucket (taken only when it succeeds: ``spend(after:by:now:)``).
    ///
    /// - Throws: ``Refusal`` with `rateLimited(retryAfter:)`: the seconds until the refused
    ///   bucket has a token.
    mutating func admit(_ request: ChatRequest, from device: DeviceKey, now: Date) throws(Refusal) {
        sweepIfDue(now: now)
        var wait: TimeInterval?
        if let rate = configuration.requestsPerSecond {
            wait = requestBuckets[device, default: TokenBucket(rate: rate, capacity: 2 * rate, now: now)].take(now: now)
        }
        if wait == nil, let bucket = dependentBucket(of: request, userId: device.userId, now: now) {
            switch bucket {
            case .messages(let rate):
                wait = messageBuckets[device.userId, default: TokenBucket(rate: rate, capacity: 2 * rate, now: now)]
                    .wait(now: now)
            case .channels(let rate, let capacity):
                wait = channelBuckets[device.userId, default: TokenBucket(rate: rate, capacity: capacity, now: now)]
                    .wait(now: now)
            }
        }
        guard let wait else {
            refusals[device] = nil
            return
        }
        let error = ChatError.rateLimited(retryAfter: wait)
        refusals[device, default: 0] += 1
        if refusals[device]! >= Self.refusalsBeforeClose {
            refusals[device] = nil
            throw .refuseAndDisconnect(error)
        }
        throw .refuse(error)
    }

    /// Takes the user's message or creation token for a request that succeeded.
    mutating func spend(after request: ChatRequest, by userId: String, created: Bool, now: Date) {
        // A node of a cluster spends for requests other nodes admitted: the bucket may be new here.
        switch dependentBucket(of: request, userId: userId, now: now) {
        case .messages(let rate)?:
            messageBuckets[userId, default: TokenBucket(rate: rate, capacity: 2 * rate, now: now)].spend(now: now)
        case .channels(let rate, let capacity)? where created:
            channelBuckets[userId, default: TokenBucket(rate: rate, capacity: capacity, now: now)].spend(now: now)
        default: break
        }
    }

    private enum Dependent {
        case messages(rate: Double)
        case channels(rate: Double, capacity: Double)
    }

    private func dependentBucket(of request: ChatRequest, userId: String, now: Date) -> Dependent? {
        switch request {
        case .sendMessage, .editMessage:
            return configuration.messagesPerSecond.map { .messages(rate: $0) }
        case .createChannel:
            return configuration.channelsPerUserPerHour.map {
                .channels(rate: Double($0) / 3_600, capacity: Double($0))
            }
        default:
            return nil
        }
    }

    /// Forgets the buckets that are full again, at most once a minute.
    ///
    /// - Complexity: O(buckets) when due, else O(1).
    private mutating func sweepIfDue(now: Date) {
        guard now >= nextSweep else { return }
        nextSweep = now + 60
        requestBuckets = requestBuckets.filter {
            var bucket = $0.value; return !bucket.isFull(now: now)
        }
        messageBuckets = messageBuckets.filter {
            var bucket = $0.value; return !bucket.isFull(now: now)
        }
        channelBuckets = channelBuckets.filter {
            var bucket = $0.value; return !bucket.isFull(now: now)
        }
        refusals = refusals.filter { requestBuckets[$0.key] != nil }
    }
}
