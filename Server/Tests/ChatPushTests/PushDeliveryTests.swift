import AsyncHTTPClient
import ChatAPI
import ChatServer
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import ChatGateway
@testable import ChatPush

/// The push pipeline of a node without a server: payloads cut to the providers' limits in
/// bytes, the waits between tries (through an injected sleep: which wait was chosen, never how
/// long one took), each provider in its own lane, a full queue dropping its oldest, failures
/// counted and logged by reason, and the webhook's timed signature.
@Suite(.timeLimit(.minutes(2))) struct PushDeliveryTests {
    /// A push for `userId`'s device `token`.
    static func push(
        _ messageId: String = "m1", body: String = "ann: hi", title: String = "Ops",
        device: PushDevice = .firebase(token: "bob-android"), userId: String = "bob"
    ) -> PushNotification {
        PushNotification(
            userId: userId, device: device, title: title, body: body, badge: 1, channelId: "ops",
            messageId: messageId)
    }

    static let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"

    // MARK: Payloads in bytes

    @Test func aBodyOf200FamilyEmojiIsCutToEachProvidersLimitOnACharacterBoundary() throws {
        let text = "ann: " + String(repeating: Self.family, count: 200)
        let push = Self.push(body: String(text.prefix(200)), device: .apn(token: Data([0xb0, 0xb0])))
        #expect(try APNsPushProvider.encoded(push).count > 4_096, "the whole payload is over Apple's limit")
        for (name, data) in [
            ("apns", try APNsPushProvider.body(of: push, limit: APNsPushProvider.payloadLimit)),
            ("fcm", try FCMPushProvider.body(of: push, limit: FCMPushProvider.messageLimit)),
        ] {
            #expect(data.count <= 4_096 && data.count > 3_900, "\(name): \(data.count) bytes")
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let body =
                name == "apns"
                ? ((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String
                : ((object["message"] as? [String: Any])?["notification"] as? [String: Any])?["body"] as? String
            let cut = try #require(body)
            #expect(cut.hasSuffix("…") && push.body.hasPrefix(cut.dropLast()), "\(name): a prefix of whole characters")
            #expect(cut.dropLast().allSatisfy { $0 == Self.family.first! || "ann: ".contains($0) })
        }
        // A payload within the limit is left whole.
        let short = Self.push(body: "ann: " + String(repeating: Self.family, count: 10))
        #expect(try APNsPushProvider.body(of: short, limit: 4_096).count == APNsPushProvider.encoded(short).count)
    }

    @Test func jsonEscapesCountInTheCut() throws {
        // A control character is 1 byte of UTF-8 and 6 of JSON ("\u0001"): cut by what is sent.
        let push = Self.push(body: String(repeating: "\u{01}", count: 200))
        let limit = 600
        let data = try FCMPushProvider.body(of: push, limit: limit)
        #expect(data.count <= limit)
        let longer = try FCMPushProvider.encoded(
            Self.push(body: String(repeating: "\u{01}", count: try Self.fcmBody(data).count + 1) + "…"))
        #expect(longer.count > limit, "the longest cut that fits")
        // A title over the limit is cut too, once the body is only "…".
        let titled = Self.push(body: "ann: hi", title: String(repeating: "t", count: 5_000))
        let both = try APNsPushProvider.body(of: titled, limit: 4_096)
        #expect(both.count <= 4_096)
    }

    static func fcmBody(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let notification = (object?["message"] as? [String: Any])?["notification"] as? [String: Any]
        return String((try #require(notification?["body"] as? String)).dropLast())
    }

    // MARK: Waits between tries

    /// A provider that answers from a script, then `sent`.
    final class ScriptedProvider: PushProvider {
        let name: String
        let script: NIOLockedValueBox<[PushResult]>
        let calls = NIOLockedValueBox(0)
        init(_ script: [PushResult], name: String = "fcm") {
            self.name = name
            self.script = NIOLockedValueBox(script)
        }
        func handles(_ device: PushDevice) -> Bool { true }
        func send(_ notification: PushNotification) async -> PushOutcome { await deliver(notification).outcome }
        func deliver(_ notification: PushNotification) async -> PushResult {
            calls.withLockedValue { $0 += 1 }
            return script.withLockedValue { $0.isEmpty ? PushResult(.sent, reason: "ok") : $0.removeFirst() }
        }
    }

    /// A delivery whose waits are recorded, not slept, with `jitter` as every draw.
    static func delivery(
        _ providers: [any PushProvider], jitter: Double, waits: NIOLockedValueBox<[Duration]>,
        metrics: GatewayMetrics = GatewayMetrics(),
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> PushDelivery {
        var delivery = PushDelivery(
            lanes: PushLanes(providers: providers), removeDevice: { _, _ in }, metrics: metrics, logger: logger)
        delivery.sleep = { wait in waits.withLockedValue { $0.append(wait) } }
        delivery.jitter = { jitter }
        return delivery
    }

    @Test func aRetryAfterIsWaitedForNotTheBackoff() async {
        let unavailable = PushResult(.retry, reason: "UNAVAILABLE", status: 503, retryAfter: .seconds(3))
        for (jitter, expected) in [(0.0, Duration.seconds(3)), (0.5, .milliseconds(3_150))] {
            let provider = ScriptedProvider([unavailable])
            let waits = NIOLockedValueBox<[Duration]>([])
            await Self.delivery([provider], jitter: jitter, waits: waits).deliver(Self.push(), through: provider)
            #expect(waits.withLockedValue { $0 } == [expected], "jitter \(jitter)")
            #expect(provider.calls.withLockedValue { $0 } == 2)
        }
    }

    @Test func retriesWithoutRetryAfterDoubleWithJitter() async {
        let failing = PushResult(.retry, reason: "UNAVAILABLE", status: 503)
        // The draws' ends: half, and up to one and a half, of 0.5 s, 1 s, 2 s, 4 s.
        for (jitter, expected) in [
            (0.0, [250, 500, 1_000, 2_000]), (0.5, [500, 1_000, 2_000, 4_000]), (0.75, [625, 1_250, 2_500, 5_000]),
        ] {
            let provider = ScriptedProvider(Array(repeating: failing, count: 5))
            let waits = NIOLockedValueBox<[Duration]>([])
            let metrics = GatewayMetrics()
            await Self.delivery([provider], jitter: jitter, waits: waits, metrics: metrics)
                .deliver(Self.push(), through: provider)
            #expect(waits.withLockedValue { $0 } == expected.map { .milliseconds($0) }, "jitter \(jitter)")
            #expect(provider.calls.withLockedValue { $0 } == 5)
            #expect(
                String(decoding: metrics.exposition(), as: UTF8.self)
                    .contains(#"chat_push_reasons_total{provider="fcm",result="retry",reason="UNAVAILABLE"} 1"#))
        }
    }

    @Test func aRetryAfterOverTheLongestWaitEndsTheTries() async {
        let provider = ScriptedProvider([
            PushResult(.retry, reason: "QUOTA_EXCEEDED", status: 429, retryAfter: .seconds(3_600))
        ])
        let waits = NIOLockedValueBox<[Duration]>([])
        await Self.delivery([provider], jitter: 0.5, waits: waits).deliver(Self.push(), through: provider)
        #expect(waits.withLockedValue { $0 }.isEmpty && provider.calls.withLockedValue { $0 } == 1)
    }

    // MARK: Reasons in metrics and logs

    /// Log lines as text: level, message, metadata sorted.
    struct CapturingLogHandler: LogHandler {
        let lines: NIOLockedValueBox<[String]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.withLockedValue { $0.append("\(event.level) \(event.message) \(fields.joined(separator: " "))") }
        }
    }

    @Test func aFailureIsCountedAndLoggedWithTheProvidersReasonButNoSecret() async {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let metrics = GatewayMetrics()
        let provider = ScriptedProvider([PushResult(.failed, reason: "THIRD_PARTY_AUTH_ERROR", status: 401)])
        let waits = NIOLockedValueBox<[Duration]>([])
        let token = "kim-iphone-via-firebase-0123456789"
        await Self.delivery([provider], jitter: 0.5, waits: waits, metrics: metrics, logger: logger)
            .deliver(Self.push(device: .firebase(token: token), userId: "kim"), through: provider)
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(
            text.contains(#"chat_push_reasons_total{provider="fcm",result="failed",reason="THIRD_PARTY_AUTH_ERROR"} 1"#)
        )
        let line = lines.withLockedValue { $0 }.first { $0.contains("push failed") } ?? ""
        for field in [
            "reason=THIRD_PARTY_AUTH_ERROR", "provider=fcm", "status=401", "user=kim", "device=firebase:kim-ipho…",
        ] {
            #expect(line.contains(field), "\(field) in \(line)")
        }
        #expect(line.contains("Firebase cannot reach APNs"), "what it means")
        #expect(!line.contains(token), "not the whole device token")
        #expect(waits.withLockedValue { $0 }.isEmpty, "a failure is not tried again")
    }

    /// A device its provider says is gone and that could not be removed (the storage away) is
    /// logged, not dropped without a word; one the user no longer holds is nothing to report.
    @Test func aGoneDeviceThatCannotBeRemovedIsLogged() async {
        for (error, logged) in [(ChatError.unavailable("the database is away"), true), (.notFound("token"), false)] {
            let lines = NIOLockedValueBox<[String]>([])
            let provider = ScriptedProvider([PushResult(.gone, reason: "UNREGISTERED", status: 404)])
            let removals = NIOLockedValueBox(0)
            var delivery = PushDelivery(
                lanes: PushLanes(providers: [provider]),
                removeDevice: { _, _ in
                    removals.withLockedValue { $0 += 1 }
                    throw error
                }, metrics: GatewayMetrics(), logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
            delivery.sleep = { _ in }
            await delivery.deliver(Self.push(device: .firebase(token: "gone-dave"), userId: "dave"), through: provider)
            let warning = lines.withLockedValue { $0 }.first { $0.contains("push device gone but not removed") }
            #expect(removals.withLockedValue { $0 } == 1)
            #expect((warning != nil) == logged, "\(error): \(lines.withLockedValue { $0 })")
            if logged {
                #expect(warning?.contains("the database is away") == true && warning?.contains("user=dave") == true)
            }
        }
    }

    @Test func reasonsOutsideTheDocumentedListsAreOther() {
        #expect(PushResult.known("Unregistered", in: APNsPushProvider.reasons) == "Unregistered")
        #expect(PushResult.known("SomethingNew\u{0}", in: APNsPushProvider.reasons) == PushResult.other)
        #expect(
            PushResult.http(410) == "http410" && PushResult.http(418) == "http4xx" && PushResult.http(599) == "http5xx")
    }

    // MARK: Lanes and the queue

    @Test func aFullQueueDropsItsOldestPushes() async {
        let queue = PushQueue(capacity: 3)
        for index in 1...5 { queue.enqueue([Self.push("m\(index)")]) }
        #expect(queue.depth == 3 && queue.dropped == 2)
        var taken: [String] = []
        for _ in 0..<3 { taken.append(await queue.next()?.messageId ?? "") }
        #expect(taken == ["m3", "m4", "m5"], "the newest kept")
        // More at once than it holds: the newest of them.
        queue.enqueue((1...5).map { Self.push("n\($0)") })
        #expect(queue.depth == 3 && queue.dropped == 4)
        #expect(await queue.next()?.messageId == "n3")
        queue.finish()
        #expect(await queue.next() == nil)
    }

    /// A provider that never answers (until cancelled), counting the pushes it holds.
    final class SilentProvider: PushProvider {
        let name = "webhook"
        let holding = NIOLockedValueBox(0)
        let most = NIOLockedValueBox(0)
        func handles(_ device: PushDevice) -> Bool { true }
        func send(_ notification: PushNotification) async -> PushOutcome { await deliver(notification).outcome }
        func deliver(_ notification: PushNotification) async -> PushResult {
            let now = holding.withLockedValue {
                $0 += 1; return $0
            }
            most.withLockedValue { $0 = max($0, now) }
            try? await Task.sleep(for: .seconds(3_600))
            holding.withLockedValue { $0 -= 1 }
            return PushResult(.retry, reason: PushResult.noAnswer)
        }
    }

    @Test func aProviderThatNeverAnswersHoldsOnlyItsOwnSlots() async throws {
        let silent = SilentProvider()
        let apns = ScriptedProvider([], name: "apns")
        let waits = NIOLockedValueBox<[Duration]>([])
        let delivery = Self.delivery([apns, silent], jitter: 0.5, waits: waits)
        let lanes = delivery.lanes
        let running = Task { try await delivery.run() }
        for index in 0..<100 { lanes.enqueue([Self.push("m\(index)")]) }
        // Every push reaches the provider that answers (bounded: at most 20 s).
        for _ in 0..<200
        where apns.calls.withLockedValue({ $0 }) < 100 || silent.most.withLockedValue({ $0 }) < delivery.concurrency {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(apns.calls.withLockedValue { $0 } == 100, "the answering provider got every push")
        #expect(silent.most.withLockedValue { $0 } == delivery.concurrency, "the silent one holds its own slots")
        // The rest wait in the silent one's queue (one more, taken, waits for a slot).
        #expect(lanes.lanes[1].queue.depth >= 100 - delivery.concurrency - 1)
        running.cancel()
        _ = try? await running.value
    }

    // MARK: The webhook's signature

    @Test func theWebhooksTimedSignatureVerifiesAndAnOldOneIsToldApart() throws {
        let key = SymmetricKey(data: Array("a shared secret".utf8))
        let body = try WebhookPushProvider.body(of: Self.push())
        let sent = Date(timeIntervalSince1970: 1_800_000_000)
        let header = WebhookPushProvider.timedSignature(of: body, at: sent, key: key)
        let seconds = 1_800_000_000
        let hex = HMAC<SHA256>.authenticationCode(for: Data("\(seconds).".utf8) + body, using: key)
            .map { String(format: "%02x", $0) }.joined()
        #expect(header == "t=\(seconds),v1=\(hex)", "Stripe's form: t, then the HMAC of \"t.body\"")
        #expect(WebhookPushProvider.verify(header, body: body, key: key, now: sent.addingTimeInterval(5)))
        #expect(!WebhookPushProvider.verify(header, body: body, key: key, now: sent.addingTimeInterval(301)), "too old")
        #expect(!WebhookPushProvider.verify(header, body: body + Data(" ".utf8), key: key, now: sent), "another body")
        let replayed = header.replacingOccurrences(of: "t=\(seconds)", with: "t=\(seconds + 600)")
        #expect(
            !WebhookPushProvider.verify(replayed, body: body, key: key, now: sent.addingTimeInterval(600)),
            "a new time on an old signature")
        // One delivery id per message, provider and token; in the body too.
        let id = WebhookPushProvider.deliveryId(of: Self.push())
        #expect(id == WebhookPushProvider.deliveryId(of: Self.push()) && UUID(uuidString: id) != nil)
        #expect(id != WebhookPushProvider.deliveryId(of: Self.push("m2")))
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(object?["deliveryId"] as? String == id)
    }

    @Test func retryAfterIsReadInSecondsAndAsADate() {
        let now = Date(timeIntervalSince1970: 1_445_412_470)
        #expect(HTTPClient.retryAfter("3", now: now) == .seconds(3))
        #expect(HTTPClient.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(10))
        #expect(HTTPClient.retryAfter("soon", now: now) == nil)
    }
}
