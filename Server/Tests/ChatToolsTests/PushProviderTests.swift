import AsyncHTTPClient
import ChatAPI
import ChatServer
import Crypto
import Foundation
import LiveChannels
import NIOConcurrencyHelpers
import NIOSSL
import ServerTestSupport
import Testing
import _CryptoExtras

@testable import ChatGateway
@testable import ChatPush

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `chat-server` pushing through APNs and FCM HTTP v1 — as reached here, through a
/// ``PushProviderStandIn`` that checks every request as Apple and Google document it, over
/// HTTP/2 and TLS whose authority the test made and the server trusts through `--push-ca-file`.
@Suite(.timeLimit(.minutes(10))) struct PushProviderTests {
    /// What a deployment gives chat-server, made by the test: an APNs auth key (.p8), a Firebase
    /// service account, a CA; and the stand-in that knows their public halves.
    struct Setup {
        let folder: URL
        let standIn: PushProviderStandIn
        let taken = NIOLockedValueBox<[PushProviderStandIn.Taken]>([])
        var flags: [String]
        /// The APNs auth key (PEM), the service account's key file, the stand-in's authority (PEM).
        let apnsKeyPEM: String
        let accountJSON: Data
        let authorityPEM: String

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let authority = try TestCertificateAuthority()
            let apnsKey = P256.Signing.PrivateKey()
            let accountKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            standIn = try await PushProviderStandIn(
                authority: authority, apnsPublicKeyPEM: apnsKey.publicKey.pemRepresentation, keyId: "KEY1234567",
                teamId: "TEAM123456", topic: "com.example.chat",
                accountPublicKeyPEM: accountKey.publicKey.pemRepresentation, accountKeyId: "account-key-1",
                clientEmail: "chat-server@example-project.iam.gserviceaccount.com", projectId: "example-project")
            apnsKeyPEM = apnsKey.pemRepresentation
            authorityPEM = authority.authorityPEM
            let keyFile = folder.appendingPathComponent("AuthKey_KEY1234567.p8")
            try Data(apnsKey.pemRepresentation.utf8).write(to: keyFile)
            let account = folder.appendingPathComponent("service-account.json")
            accountJSON = try JSONSerialization.data(withJSONObject: [
                "type": "service_account", "project_id": standIn.projectId, "private_key_id": "account-key-1",
                "private_key": accountKey.pkcs8PEMRepresentation, "client_email": standIn.clientEmail,
                "token_uri": standIn.tokenURI,
            ])
            try accountJSON.write(to: account)
            let authorityFile = folder.appendingPathComponent("stand-in-ca.pem")
            try Data(authority.authorityPEM.utf8).write(to: authorityFile)
            flags = [
                "--apns-key-file", keyFile.path, "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456",
                "--apns-topic", "com.example.chat", "--apns-url", standIn.url, "--fcm-service-account", account.path,
                "--fcm-url", standIn.url, "--push-ca-file", authorityFile.path,
            ]
            let (standIn, taken) = (standIn, taken)
            Task {
                for await request in standIn.requests { taken.withLockedValue { $0.append(request) } }
            }
        }

        /// Waits (up to 30 s) until what the stand-in took holds `condition`; returns it all.
        func waitUntil(_ condition: ([PushProviderStandIn.Taken]) -> Bool) async throws -> [PushProviderStandIn.Taken] {
            for _ in 0..<300 {
                let all = taken.withLockedValue { $0 }
                if condition(all) { return all }
                try await Task.sleep(for: .milliseconds(100))
            }
            let all = taken.withLockedValue { $0 }
            Issue.record("the stand-in took \(all.count), the last: \(all.suffix(20))")
            return all
        }

        func finish() {
            standIn.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        /// An HTTP client that trusts the stand-in's authority (what `--push-ca-file` makes).
        func httpClient() throws -> HTTPClient {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8)))]
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .automatic
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
    }

    /// APNs and FCM providers against the stand-in, each answer read as Apple and Google
    /// document it: FCM's `Retry-After`, `THIRD_PARTY_AUTH_ERROR` (no new access token),
    /// `INVALID_ARGUMENT` of the token (gone) and of a message too big (failed); APNs' 5xx
    /// (retried, after Apple's `Retry-After` when it sends one) and 413 `PayloadTooLarge`; a message of 200 family emoji cut to
    /// each limit and taken.
    @Test func providersReadEachAnswerAsAppleAndGoogleDocumentIt() async throws {
        let setup = try await Setup()
        defer { setup.finish() }
        let client = try setup.httpClient()
        do {
            try await Self.answersAsDocumented(setup: setup, client: client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func answersAsDocumented(setup: Setup, client: HTTPClient) async throws {
        let standIn = setup.standIn
        standIn.retryAfter("3")
        standIn.answer { token, _ in
            switch token {
            case "busy": (503, PushProviderStandIn.fcmUnavailable)
            case "kim": (401, PushProviderStandIn.fcmThirdPartyAuthError)
            case "cut": (400, PushProviderStandIn.fcmInvalidToken)
            case "a0a0": (500, PushProviderStandIn.apnsError("InternalServerError"))
            case "a1a1": (503, PushProviderStandIn.apnsError("ServiceUnavailable"))
            default: nil
            }
        }
        func push(_ device: PushDevice, body: String = "ann: hi") -> PushNotification {
            PushNotification(
                userId: "bob", device: device, title: "Ops", body: body, badge: 1, channelId: "ops", messageId: "m1")
        }
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        let emoji = String("ann: \(String(repeating: family, count: 200))".prefix(200))

        let fcm = try await FCMPushProvider(
            account: try FCMPushProvider.ServiceAccount(json: setup.accountJSON), baseURL: standIn.url, client: client)
        #expect(
            await fcm.deliver(push(.firebase(token: "busy")))
                == PushResult(.retry, reason: "UNAVAILABLE", status: 503, retryAfter: .seconds(3)))
        #expect(
            await fcm.deliver(push(.firebase(token: "kim")))
                == PushResult(.failed, reason: "THIRD_PARTY_AUTH_ERROR", status: 401))
        #expect(
            await fcm.deliver(push(.firebase(token: "cut")))
                == PushResult(.gone, reason: "INVALID_ARGUMENT", status: 400))
        #expect(await fcm.deliver(push(.firebase(token: "bob-android"), body: emoji)).outcome == .sent)
        var whole = fcm
        whole.bodyLimit = .max
        #expect(
            await whole.deliver(push(.firebase(token: "bob-android"), body: emoji))
                == PushResult(.failed, reason: "INVALID_ARGUMENT", status: 400), "too big: failed, the token kept")

        let apns = try await APNsPushProvider(
            keyPEM: setup.apnsKeyPEM, keyId: "KEY1234567", teamId: "TEAM123456", topic: "com.example.chat",
            baseURL: standIn.url, client: client)
        for (token, reason, status) in [
            (Data([0xa0, 0xa0]), "InternalServerError", 500), (Data([0xa1, 0xa1]), "ServiceUnavailable", 503),
        ] {
            let result = await apns.deliver(push(.apn(token: token)))
            #expect(result.outcome == .retry && result.reason == reason && result.status == status, "\(result)")
        }
        #expect(await apns.deliver(push(.apn(token: Data([0xb0, 0xb0])), body: emoji)).outcome == .sent)
        var wholeAPNs = apns
        wholeAPNs.bodyLimit = .max
        #expect(
            await wholeAPNs.deliver(push(.apn(token: Data([0xb0, 0xb0])), body: emoji))
                == PushResult(.failed, reason: "PayloadTooLarge", status: 413))

        let taken = try await setup.waitUntil { $0.count >= 10 }
        #expect(taken.allSatisfy { $0.problems.isEmpty }, "\(taken.filter { !$0.problems.isEmpty })")
        #expect(taken.filter { $0.kind == "oauth" }.count == 1, "THIRD_PARTY_AUTH_ERROR asks for no new access token")
        let cut = taken.filter { $0.status == 200 && $0.deviceToken != "" }
        #expect(
            cut.count == 2 && cut.allSatisfy { $0.body?.hasSuffix("…") == true && emoji.hasPrefix($0.body!.dropLast()) }
        )
    }

    /// APNs beside a webhook that takes connections and never answers: every push to APNs goes
    /// through (the webhook's pushes hold the webhook's slots only; sharing 16 slots, the 17th
    /// APNs push waited a minute behind the webhook's tries).
    @Test func aWebhookThatStopsAnsweringLetsAPNsPushesThrough() async throws {
        let setup = try await Setup()
        defer { setup.finish() }
        let silent = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-c",
                "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen(1024)\n"
                    + "print('listening', s.getsockname()[1], flush=True)\ntime.sleep(600)\n",
            ])
        defer { silent.process.terminate() }
        var lines = silent.lines.makeAsyncIterator()
        let listening = try #require(await lines.next(), "the silent listener did not start")
        let secret = setup.folder.appendingPathComponent("webhook.secret")
        try Data("secret".utf8).write(to: secret)
        let webhook = "http://127.0.0.1:\(listening.split(separator: " ").last ?? "")/push"
        let (server, port) = try await ChatServerProcess.start(
            ["--admin", "boss", "--push-webhook", webhook, "--push-webhook-secret-file", secret.path] + setup.flags)
        defer { Self.stop(server) }
        let bob = try await PushWebhookTests.connected("bob", port: port)
        _ = try await bob.send(.addPushDevice(.apn(token: Data([0xb0, 0xb0]))))
        await bob.disconnect()
        #expect(
            try await AdminAPITests.call(
                "POST", "/admin/v1/channels", port: port,
                body: ["type": "community", "channelId": "ops", "userIds": ["ann", "bob"]]
            ).status == 201)
        for index in 0..<40 {
            let sent = try await AdminAPITests.call(
                "POST", "/admin/v1/channels/ops/messages", port: port, body: ["userId": "ann", "text": "m\(index)"])
            #expect(sent.status == 201)
        }
        let taken = try await setup.waitUntil { $0.filter { $0.kind == "apns" && $0.status == 200 }.count >= 40 }
        #expect(taken.filter { $0.kind == "apns" && $0.status == 200 }.count == 40, "every APNs push went through")
    }

    @Test func awayMembersArePushedThroughAPNsAndFCMAsTheyDocumentIt() async throws {
        let setup = try await Setup()
        defer { setup.finish() }
        let standIn = setup.standIn
        standIn.answer { token, attempt in
            switch token {
            case _ where token.hasPrefix("dead"): (410, PushProviderStandIn.apnsError("Unregistered"))
            case _ where token.hasPrefix("bad0"): (400, PushProviderStandIn.apnsError("BadDeviceToken"))
            case "gone-dave": (404, PushProviderStandIn.fcmUnregistered)
            case "cut-jo": (400, PushProviderStandIn.fcmInvalidToken)
            case "kim-iphone-via-firebase": (401, PushProviderStandIn.fcmThirdPartyAuthError)
            case _ where token.hasPrefix("f1a2") && attempt == 1:
                (500, PushProviderStandIn.apnsError("InternalServerError"))
            case "busy-gina" where attempt == 1: (429, #"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}"#)
            default: nil
            }
        }
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"] + setup.flags)
        // Stopped before the stand-in: no push arrives while it stops.
        defer { Self.stop(server) }
        do {
            try await Self.pushesThroughAPNsAndFCM(setup: setup, port: port, server: server)
        } catch {
            Issue.record("chat-server's standard error: \(server.standardError.suffix(4_000))")
            throw error
        }
    }

    /// The body of the test above, on chat-server at `port`.
    static func pushesThroughAPNsAndFCM(setup: Setup, port: Int, server: Subprocess) async throws {
        let standIn = setup.standIn
        // bob: an iPhone and an Android phone; carol's iPhone is gone (410), ivy's token is bad
        // (400); dave's Android is unregistered (404), jo's token is not one (400
        // INVALID_ARGUMENT of message.token); kim's iPhone through Firebase meets
        // THIRD_PARTY_AUTH_ERROR (401: Firebase's APNs key is wrong); frank's first push fails
        // (APNs 500: retried, then sent), gina's once (429, retried); erin is online; hank turned the
        // channel's notifications off; ann sends.
        let devices: [(String, PushDevice)] = [
            ("bob", .apn(token: Data([0xb0, 0xb0, 0xb0, 0xb0]))), ("bob", .firebase(token: "bob-android")),
            ("carol", .apn(token: Data([0xde, 0xad, 0x00, 0x01]))),
            ("ivy", .apn(token: Data([0xba, 0xd0, 0x00, 0x01]))),
            ("dave", .firebase(token: "gone-dave")), ("jo", .firebase(token: "cut-jo")),
            ("kim", .firebase(token: "kim-iphone-via-firebase")),
            ("frank", .apn(token: Data([0xf1, 0xa2, 0x00, 0x01]))),
            ("gina", .firebase(token: "busy-gina")), ("erin", .apn(token: Data([0xe1, 0xe1]))),
            ("hank", .apn(token: Data([0x4a, 0x4a]))), ("ann", .apn(token: Data([0xa0, 0xa0]))),
        ]
        let members = ["ann", "bob", "carol", "ivy", "dave", "jo", "kim", "frank", "gina", "erin", "hank"]
        #expect(
            try await AdminAPITests.call(
                "POST", "/admin/v1/channels", port: port,
                body: ["type": "community", "channelId": "ops", "displayName": "Ops", "userIds": members]
            ).status == 201)
        var online: [WebSocketTransport] = []
        for (user, device) in devices {
            let transport = try await PushWebhookTests.connected(user, port: port)
            _ = try await transport.send(.addPushDevice(device))
            if user == "hank" {
                _ = try await transport.send(.setChannelNotifications(channelId: "ops", enabled: false))
            }
            if user == "erin" || user == "ann" { online.append(transport) } else { await transport.disconnect() }
        }
        let first = try await AdminAPITests.call(
            "POST", "/admin/v1/channels/ops/messages", port: port, body: ["userId": "ann", "text": "Deploy at 5?"])
        let firstId = try #require(first.object["messageId"] as? String)

        // bob twice (APNs, FCM), carol, ivy, dave, jo once (gone), kim once (failed), frank
        // twice (500, then sent), gina twice, one access token for all the FCM pushes (THIRD_PARTY_AUTH_ERROR
        // asks for none); nothing for erin, hank or ann.
        var taken = try await setup.waitUntil { $0.filter { $0.messageId == firstId }.count >= 11 }
        try await Task.sleep(for: .milliseconds(500))
        taken = setup.taken.withLockedValue { $0 }
        #expect(taken.allSatisfy { $0.problems.isEmpty }, "\(taken.filter { !$0.problems.isEmpty })")
        let pushes = taken.filter { $0.messageId == firstId }
        #expect(
            pushes.map { "\($0.kind) \($0.deviceToken) \($0.status)" }.sorted() == [
                "apns b0b0b0b0 200", "apns bad00001 400", "apns dead0001 410", "apns f1a20001 200", "apns f1a20001 500",
                "fcm bob-android 200", "fcm busy-gina 200", "fcm busy-gina 429", "fcm cut-jo 400", "fcm gone-dave 404",
                "fcm kim-iphone-via-firebase 401",
            ])
        #expect(taken.filter { $0.kind == "oauth" }.count == 1, "one access token serves every push")
        #expect(Set(pushes.filter { $0.kind == "apns" }.map(\.credential)).count == 1, "one provider token, reused")
        let bob = try #require(pushes.first { $0.deviceToken == "b0b0b0b0" })
        #expect(bob.title == "Ops" && bob.body == "ann: Deploy at 5?" && bob.badge == 1 && bob.channelId == "ops")
        let bobAndroid = try #require(pushes.first { $0.deviceToken == "bob-android" })
        #expect(bobAndroid.title == "Ops" && bobAndroid.body == "ann: Deploy at 5?" && bobAndroid.badge == 1)

        // The devices the providers called gone are removed; the others stay.
        for (user, count) in [("carol", 0), ("ivy", 0), ("dave", 0), ("jo", 0), ("bob", 2), ("frank", 1), ("kim", 1)] {
            var devices: Int?
            for _ in 0..<50 {
                devices =
                    (try await AdminAPITests.call("GET", "/admin/v1/users/\(user)", port: port)
                    .object["pushDevices"] as? [Any])?.count
                if devices == count { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(devices == count, "\(user)'s devices")
        }

        // A muted channel pushes nothing; a provider token APNs calls expired and an access
        // token FCM refuses are made anew, and the push goes through.
        let boss = try await PushWebhookTests.connected("boss", port: port)
        _ = try await boss.send(.createChannel(ChannelDraft(type: .community, channelId: "quiet", userIds: ["bob"])))
        _ = try await boss.send(.muteChannel(channelId: "quiet", period: 600))
        let quiet = try await boss.send(.sendMessage(MessageDraft(channelId: "quiet", text: "shh")))
        let inUse = Set(taken.filter { $0.status == 200 }.map(\.credential))
        for credential in inUse { standIn.revoke(credential) }
        let second = try await AdminAPITests.call(
            "POST", "/admin/v1/channels/ops/messages", port: port, body: ["userId": "ann", "text": "Or at 6"])
        let secondId = try #require(second.object["messageId"] as? String)
        taken = try await setup.waitUntil {
            Set($0.filter { $0.messageId == secondId && $0.status == 200 }.map(\.deviceToken)).count >= 4
        }
        try await Task.sleep(for: .milliseconds(500))
        taken = setup.taken.withLockedValue { $0 }
        #expect(taken.allSatisfy { $0.problems.isEmpty }, "\(taken.filter { !$0.problems.isEmpty })")
        let again = taken.filter { $0.messageId == secondId }
        // Each device's push went through in the end, after a refusal of the revoked credential
        // (both FCM pushes may meet the revoked token, or the second may already have the new one).
        for device in ["b0b0b0b0", "f1a20001", "bob-android", "busy-gina"] {
            #expect(again.last { $0.deviceToken == device }?.status == 200, "\(device): \(again)")
        }
        #expect(again.filter { $0.kind == "apns" && $0.status == 403 }.count >= 1)
        #expect(again.filter { $0.kind == "fcm" && $0.status == 401 }.count >= 1)
        #expect(again.allSatisfy { [200, 401, 403].contains($0.status) }, "\(again)")
        #expect(taken.filter { $0.kind == "oauth" }.count == 2, "one new access token")
        #expect(Set(again.filter { $0.kind == "apns" && $0.status == 200 }.map(\.credential)).count == 1)
        #expect(!taken.contains { $0.channelId == "quiet" }, "a muted channel pushes nothing: \(quiet)")

        let metrics = try await URLSession.cookieless.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!).0
        let text = String(decoding: metrics, as: UTF8.self)
        // Each outcome (as API.md pins the metric), and under the provider's reason.
        for line in [
            #"chat_push_sent_total{provider="apns",result="sent"} 4"#,
            #"chat_push_sent_total{provider="apns",result="gone"} 2"#,
            #"chat_push_sent_total{provider="fcm",result="sent"} 4"#,
            #"chat_push_sent_total{provider="fcm",result="gone"} 2"#,
            #"chat_push_sent_total{provider="fcm",result="failed"} 2"#,
            #"chat_push_reasons_total{provider="apns",result="sent",reason="ok"} 4"#,
            #"chat_push_reasons_total{provider="apns",result="gone",reason="Unregistered"} 1"#,
            #"chat_push_reasons_total{provider="apns",result="gone",reason="BadDeviceToken"} 1"#,
            #"chat_push_reasons_total{provider="fcm",result="sent",reason="ok"} 4"#,
            #"chat_push_reasons_total{provider="fcm",result="gone",reason="UNREGISTERED"} 1"#,
            #"chat_push_reasons_total{provider="fcm",result="gone",reason="INVALID_ARGUMENT"} 1"#,
            #"chat_push_reasons_total{provider="fcm",result="failed",reason="THIRD_PARTY_AUTH_ERROR"} 2"#,
            "chat_push_queue_depth 0",
        ] {
            #expect(text.contains(line), "\(line) in \(text.split(separator: "\n").filter { $0.contains("push") })")
        }

        // A message of 200 family emoji (25 bytes each: 5,000 bytes of body) reaches bob's
        // iPhone and Android phone, cut to the providers' 4,096 bytes on a character boundary.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        let emoji = try await AdminAPITests.call(
            "POST", "/admin/v1/channels/ops/messages", port: port,
            body: ["userId": "ann", "text": String(repeating: family, count: 200)])
        let emojiId = try #require(emoji.object["messageId"] as? String)
        taken = try await setup.waitUntil {
            Set($0.filter { $0.messageId == emojiId && $0.status == 200 }.map(\.deviceToken))
                .isSuperset(of: ["b0b0b0b0", "bob-android"])
        }
        let cut = taken.filter { $0.messageId == emojiId }
        #expect(!cut.contains { $0.status == 413 || ($0.kind == "fcm" && $0.status == 400) }, "\(cut)")
        for device in ["b0b0b0b0", "bob-android"] {
            let body = try #require(cut.first { $0.deviceToken == device && $0.status == 200 }?.body)
            #expect(body.hasSuffix("…") && "ann: \(String(repeating: family, count: 200))".hasPrefix(body.dropLast()))
            #expect(body.count > 100, "\(device): \(body.count) characters")
        }

        // Each failure is logged with its reason and what it means, never with a credential.
        let log = server.standardError
        #expect(log.contains("push failed") && log.contains("reason=THIRD_PARTY_AUTH_ERROR"), "\(log.suffix(3_000))")
        for credential in Set(taken.map(\.credential)) where !credential.isEmpty {
            #expect(!log.contains(credential), "a credential in the log")
        }
        await boss.disconnect()
        for transport in online { await transport.disconnect() }
    }

    /// Three nodes on one PostgreSQL send APNs one provider token between them (each signing
    /// its own, three nodes made a new token three times as often as Apple allows); when Apple
    /// answers that it expired, one node replaces it and every node then sends the new one.
    @Test func aClustersNodesSendOneAPNsProviderToken() async throws {
        try await HeavyTestGate.run {
            let setup = try await Setup()
            defer { setup.finish() }
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let nodes = try await ChatServerProcess.startNodes(3, postgres: url) { _ in setup.flags }
            defer { Subprocess.stop(nodes.map(\.process)) }
            let ports = nodes.map(\.port)
            try await PushWebhookTests.awayMember(.apn(token: Data([0xb0, 0xb0, 0x00, 0x01])), onCluster: ports)
            func delivered(_ taken: [PushProviderStandIn.Taken]) -> [PushProviderStandIn.Taken] {
                taken.filter { $0.kind == "apns" && $0.status == 200 }
            }
            try await PushWebhookTests.send(0..<12, spreadOver: ports)
            let before = delivered(try await setup.waitUntil { delivered($0).count >= 12 })
            let tokens = Set(before.map(\.credential))
            #expect(before.count == 12 && tokens.count == 1, "provider tokens sent: \(tokens.count)")

            // Apple answers 403 ExpiredProviderToken to it from now on.
            setup.standIn.revoke(try #require(tokens.first))
            try await PushWebhookTests.send(12..<24, spreadOver: ports)
            let after = delivered(try await setup.waitUntil { delivered($0).count >= 24 }).dropFirst(before.count)
            let renewed = Set(after.map(\.credential))
            #expect(after.count == 12 && renewed.count == 1 && renewed != tokens, "tokens after: \(renewed.count)")
            #expect(Set(after.compactMap(\.body)).count == 12, "each message pushed once")
        }
    }

    /// FCM down (503 to everything, which pushes retry) for 30 s
    /// while a member sends 400 messages a second, each pushing to one member who is away: every send is acknowledged, the queue stays within its
    /// bound (what does not fit is dropped and counted), the server's memory grows no more than
    /// in the same run without pushes, and once FCM is back the queue's pushes go through. The send
    /// latencies of both runs are printed side by side (figures, not assertions).
    @Test func aProviderDownForHalfAMinuteNeitherSlowsSendsNorGrowsMemory() async throws {
        try await HeavyTestGate.run {
            let setup = try await Setup()
            defer { setup.finish() }
            setup.standIn.isDown = true
            let pushing = try await Self.sendForHalfAMinute(["--no-limits"] + setup.flags)
            defer { Self.stop(pushing.server) }
            let metrics = try await Self.metrics(port: pushing.port)
            let depth = try #require(metrics["chat_push_queue_depth"])
            let dropped = try #require(metrics["chat_push_dropped_total"])
            #expect(depth <= 10_000 && dropped > 0, "depth \(depth), dropped \(dropped)")
            let quiet = try await Self.sendForHalfAMinute(["--no-limits"])
            Self.stop(quiet.server)
            #expect(pushing.unanswered == 0 && quiet.unanswered == 0)
            #expect(
                pushing.residentGrowth - quiet.residentGrowth < 32 << 20,
                "memory: +\(pushing.residentGrowth >> 20) MB with FCM down, +\(quiet.residentGrowth >> 20) MB without pushes"
            )
            print(
                """
                FCM down for 30 s, \(pushing.latencies.count) sends at 400/s, each pushing to one away member: \
                p50 \(Self.percentile(pushing.latencies, 0.5)) ms, p99 \(Self.percentile(pushing.latencies, 0.99)) ms, \
                memory +\(pushing.residentGrowth >> 20) MB, queue \(depth), dropped \(dropped); the same run without \
                pushes: p50 \(Self.percentile(quiet.latencies, 0.5)) ms, p99 \(Self.percentile(quiet.latencies, 0.99)) ms, \
                memory +\(quiet.residentGrowth >> 20) MB
                """)

            // FCM is back: the queue drains, a push at a time going through.
            let before = setup.taken.withLockedValue { $0.count }
            setup.standIn.isDown = false
            let after = try await setup.waitUntil { $0.dropFirst(before).filter { $0.status == 200 }.count >= 100 }
            #expect(after.dropFirst(before).filter { $0.status == 200 }.count >= 100, "pushes go through again")
        }
    }

    /// Stops `server` and waits until it has exited.
    static func stop(_ server: Subprocess) {
        server.process.terminate()
        Subprocess.waitForExit(of: server.process)
    }

    /// What one run of ``sendForHalfAMinute(_:)`` saw.
    struct LoadRun {
        var server: Subprocess
        var port: Int
        /// Each acknowledged send's round trip, in milliseconds.
        var latencies: [Double]
        var unanswered: Int
        /// The server's resident memory at the end less at the start, in bytes.
        var residentGrowth: Int
    }

    /// Starts chat-server with `flags`; ann sends into a channel whose other member, bob, is away
    /// with an Android phone registered, 4 messages every 10 ms for 30 s.
    static func sendForHalfAMinute(_ flags: [String]) async throws -> LoadRun {
        let (server, port) = try await ChatServerProcess.start(flags)
        let bob = try await PushWebhookTests.connected("bob", port: port)
        _ = try await bob.send(.addPushDevice(.firebase(token: "bob-phone")))
        await bob.disconnect()
        let ann = try await PushWebhookTests.connected("ann", port: port)
        _ = try await ann.send(.createChannel(ChannelDraft(type: .community, channelId: "load", userIds: ["bob"])))
        let start = try residentBytes(of: server)
        let clock = ContinuousClock()
        let began = clock.now
        var latencies: [Double] = []
        var unanswered = 0
        for tick in 0..<3_000 {
            let results = await withTaskGroup(of: Double?.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let sent = clock.now
                        let draft = MessageDraft(channelId: "load", text: "m\(tick)-\(index)")
                        guard case .message = try? await ann.send(.sendMessage(draft)).response else { return nil }
                        let elapsed = clock.now - sent
                        return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3
                    }
                }
                return await group.reduce(into: [Double?]()) { $0.append($1) }
            }
            latencies += results.compactMap { $0 }
            unanswered += results.filter { $0 == nil }.count
            try? await Task.sleep(until: began + .milliseconds(10 * (tick + 1)))
        }
        let end = try residentBytes(of: server)
        await ann.disconnect()
        return LoadRun(
            server: server, port: port, latencies: latencies, unanswered: unanswered, residentGrowth: end - start)
    }

    /// A process's resident memory (`VmRSS` in `/proc/PID/status`), in bytes.
    static func residentBytes(of process: Subprocess) throws -> Int {
        let status = try String(
            contentsOfFile: "/proc/\(process.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1_024
    }

    /// The `fraction` percentile of `values`, rounded to 0.01.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return (sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] * 100).rounded() / 100
    }

    /// The unlabelled samples of `/metrics` on `port`.
    static func metrics(port: Int) async throws -> [String: Int] {
        let data = try await URLSession.cookieless.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!).0
        var samples: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = Int(value) }
        }
        return samples
    }

    /// Each provider's credentials checked at start: what is not a key stops the server with
    /// status 2, naming the file; so does an authority file that holds no certificate.
    @Test func badProviderFilesStopTheServerNamingTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notAKey = folder.appendingPathComponent("AuthKey.p8")
        try Data("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".utf8).write(to: notAKey)
        let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let noProject = folder.appendingPathComponent("no-project.json")
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "private_key": rsaKey.pkcs8PEMRepresentation,
            "client_email": "a@b.iam.gserviceaccount.com",
        ]).write(to: noProject)
        let notAnAuthority = folder.appendingPathComponent("ca.pem")
        try Data("not a certificate\n".utf8).write(to: notAnAuthority)
        let cases: [([String], String, String)] = [
            (
                [
                    "--apns-key-file", notAKey.path, "--apns-key-id", "K", "--apns-team-id", "T", "--apns-topic",
                    "com.example.chat",
                ], notAKey.path, "not an APNs auth key"
            ),
            (["--fcm-service-account", noProject.path], noProject.path, "no project_id"),
            (
                ["--fcm-service-account", folder.appendingPathComponent("missing.json").path], "missing.json",
                "cannot read"
            ),
            (
                ["--fcm-service-account", noProject.path, "--push-ca-file", notAnAuthority.path], notAnAuthority.path,
                "PEM"
            ),
        ]
        for (flags, file, reason) in cases {
            let process = try Subprocess(ChatServerProcess.executable, ["--dev", "--port", "0"] + flags)
            #expect(await process.exitStatus() == 2, "\(flags)")
            #expect(
                process.standardError.contains(file) && process.standardError.contains(reason),
                "\(process.standardError)")
        }
    }
}
