import AsyncHTTPClient
import ChatAPI
import ChatServer
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Pushes to an operator's own push service: `POST` to `url` with the JSON body
/// `{"deliveryId","userId","deviceToken","provider","channelId","messageId","title","body","badge"}`
/// and three headers:
///
/// - `X-Chat-Webhook-Signature: t=<unix seconds>,v1=<hex>`: the HMAC-SHA256, with the shared
///   secret, of the attempt's time in whole seconds, a dot and the body (`"<t>.<body>"`), as
///   Stripe signs: a receiver checks it and refuses a `t` older than a few minutes, so a
///   captured request cannot be replayed later.
/// - `X-Chat-Delivery: <uuid>`: the push's id (also the body's `deliveryId`), the same on every
///   attempt and on every node (made from the message, the provider and the token): a receiver
///   that has seen it drops the request as a duplicate (a retry whose first answer was lost).
/// - `X-Chat-Signature: sha256=<hex>`: the HMAC-SHA256 of the body alone, as before the
///   timestamp: kept for receivers written against it, which cannot tell a replay.
///
/// 2xx: sent; 410: the device is gone; 429 and 5xx: retried (after their `Retry-After`); other
/// statuses: failed. Every device, whatever its provider.
public struct WebhookPushProvider: PushProvider {
    public let name = "webhook"
    let url: String
    let key: SymmetricKey
    let client: HTTPClient
    /// The node's clock (the signature's time).
    let clock: any ServerClock

    /// A provider posting to `url`, signing with `secret` at the time of `clock` (the node's: the
    /// system's by default), through `client` (the process's shared one by default).
    public init(url: String, secret: [UInt8], client: HTTPClient = .shared, clock: any ServerClock = SystemClock()) {
        self.url = url
        self.key = SymmetricKey(data: secret)
        self.client = client
        self.clock = clock
    }

    public func handles(_ device: PushDevice) -> Bool { true }

    struct Body: Encodable {
        var deliveryId: String
        var userId: String
        var deviceToken: String
        var provider: String
        var channelId: String
        var messageId: String
        var title: String
        var body: String
        var badge: Int
    }

    /// The JSON body of `notification`.
    static func body(of notification: PushNotification) throws -> Data {
        try PushJSON.encode(
            Body(
                deliveryId: deliveryId(of: notification), userId: notification.userId,
                deviceToken: notification.device.id, provider: notification.device.provider.rawValue,
                channelId: notification.channelId, messageId: notification.messageId, title: notification.title,
                body: notification.body, badge: notification.badge))
    }

    /// The id of `notification`'s delivery: a UUID made from its message, its provider and its
    /// token (the first 16 bytes of their SHA-256, as a version 8 UUID), so every attempt and
    /// every node name it alike.
    static func deliveryId(of notification: PushNotification) -> String {
        let name = [notification.messageId, notification.device.provider.rawValue, notification.device.id]
            .joined(separator: "\u{0}")
        var bytes = Array(SHA256.hash(data: Data(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let cuts = [0, 8, 12, 16, 20, 32].map { hex.index(hex.startIndex, offsetBy: $0) }
        return (0..<5).map { String(hex[cuts[$0]..<cuts[$0 + 1]]) }.joined(separator: "-")
    }

    /// `sha256=HEX`: the signature of `body` alone with `key` (`X-Chat-Signature`).
    static func signature(of body: Data, key: SymmetricKey) -> String {
        "sha256=" + hex(HMAC<SHA256>.authenticationCode(for: body, using: key))
    }

    /// `t=<unix seconds>,v1=HEX`: the signature of `"<t>.<body>"` with `key`
    /// (`X-Chat-Webhook-Signature`).
    static func timedSignature(of body: Data, at time: Date, key: SymmetricKey) -> String {
        let seconds = Int(time.timeIntervalSince1970.rounded(.down))
        return "t=\(seconds),v1="
            + hex(HMAC<SHA256>.authenticationCode(for: Data("\(seconds).".utf8) + body, using: key))
    }

    /// A receiver's check of `X-Chat-Webhook-Signature`: whether `header` holds a `v1` signature
    /// of `body` with `key` at its `t`, and `t` is within `tolerance` of `now` (an older one is a
    /// replay, or waited too long). What `Clients/push_receiver.py` checks, and the operator's
    /// service should.
    static func verify(
        _ header: String, body: Data, key: SymmetricKey, now: Date, tolerance: TimeInterval = 300
    ) -> Bool {
        var time: Int?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { time = Int(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let time, abs(now.timeIntervalSince1970 - TimeInterval(time)) <= tolerance else { return false }
        let expected = timedSignature(of: body, at: Date(timeIntervalSince1970: TimeInterval(time)), key: key)
        return signatures.contains { "t=\(time),v1=\($0)" == expected }
    }

    private static func hex(_ code: some Sequence<UInt8>) -> String {
        code.map { String(format: "%02x", $0) }.joined()
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        await deliver(notification).outcome
    }

    public func deliver(_ notification: PushNotification) async -> PushResult {
        let answer: ProviderAnswer
        do {
            let body = try Self.body(of: notification)
            answer = try await client.post(
                url,
                headers: [
                    ("X-Chat-Webhook-Signature", Self.timedSignature(of: body, at: clock.now, key: key)),
                    ("X-Chat-Delivery", Self.deliveryId(of: notification)),
                    ("X-Chat-Signature", Self.signature(of: body, key: key)),
                ], body: body)
        } catch {
            return PushResult(.retry, reason: PushResult.noAnswer)
        }
        let status = answer.status
        let reason = (200..<300).contains(status) ? PushResult.ok : PushResult.http(status)
        switch status {
        case 200..<300: return PushResult(.sent, reason: reason, status: status)
        case 410: return PushResult(.gone, reason: reason, status: status)
        case 429, 500..<600: return PushResult(.retry, reason: reason, status: status, retryAfter: answer.retryAfter)
        default: return PushResult(.failed, reason: reason, status: status)
        }
    }
}
