import ChatAPI
import Foundation
import Testing
import ServerTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The admin API under `/admin/v1/` of a `chat-server` process, as an app's backend calls it
/// (`Docs/Admin.md`): admins only (401 without a token, 403 for a user who is not an admin),
/// the protocol's errors as JSON with their statuses, bad input refused naming the field, and the
/// same answers from every node of a cluster.
@Suite struct AdminAPITests {
    /// An HTTP call: the status and the body parsed as JSON (`nil` when empty or not JSON).
    struct Answer {
        var status: Int
        var json: Any?
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        /// The kind of the error in `{"error":{KIND:…}}`.
        var errorKind: String? { (object["error"] as? [String: Any])?.keys.first }
    }

    static func call(
        _ method: String, _ path: String, port: Int, token: String? = "dev:boss", body: [String: Any]? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.cookieless.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return Answer(status: status, json: data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data))
    }

    @Test func anAppsBackendManagesUsersChannelsAndMessages() async throws {
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        // Admins only.
        let anonymous = try await Self.call("GET", "/admin/v1/users/boss", port: port, token: nil)
        #expect(anonymous.status == 401)
        #expect(anonymous.errorKind == "unauthorized")
        let stranger = ChatServerProcess.transport("eve", port: port)
        _ = try await stranger.connect(resumingAfter: nil)
        let forbidden = try await Self.call("GET", "/admin/v1/users/boss", port: port, token: "dev:eve")
        #expect(forbidden.status == 403)
        #expect(forbidden.errorKind == "forbidden")
        #expect(try await Self.call("GET", "/admin/v1/users/boss", port: port, token: "not a token").status == 401)

        // Users: made, then read with their devices and channels.
        let made = try await Self.call(
            "POST", "/admin/v1/users", port: port, body: ["userId": "ann", "displayName": "Ann"])
        #expect(made.status == 201)
        #expect(made.object["userId"] as? String == "ann")
        #expect(made.object["displayName"] as? String == "Ann")
        let missing = try await Self.call("GET", "/admin/v1/users/nobody", port: port)
        #expect(missing.status == 404)
        #expect(missing.errorKind == "notFound")
        let refused = try await Self.call("POST", "/admin/v1/users", port: port, body: ["displayName": "no id"])
        #expect(refused.status == 400)
        let invalid = try #require((refused.object["error"] as? [String: Any])?["invalidArgument"] as? [String: Any])
        #expect(invalid["field"] as? String == "userId")

        // Channels: made, a member added, a message sent as a user; read back whole.
        let channel = try await Self.call(
            "POST", "/admin/v1/channels", port: port,
            body: ["type": "community", "channelId": "news", "displayName": "News", "userIds": ["ann"]])
        #expect(channel.status == 201)
        #expect(channel.object["channelId"] as? String == "news")
        let members = try await Self.call(
            "POST", "/admin/v1/channels/news/members", port: port, body: ["userIds": ["eve"]])
        #expect(members.status == 200)
        #expect(Set((members.json as? [[String: Any]] ?? []).compactMap { $0["userId"] as? String }) == ["ann", "eve"])
        let sent = try await Self.call(
            "POST", "/admin/v1/channels/news/messages", port: port, body: ["userId": "ann", "text": "<b>hello</b>"])
        #expect(sent.status == 201)
        #expect(sent.object["text"] as? String == "<b>hello</b>")
        let renamed = try await Self.call(
            "PATCH", "/admin/v1/channels/news", port: port, body: ["displayName": "Daily news", "tags": ["press"]])
        #expect(renamed.status == 200)
        #expect(renamed.object["displayName"] as? String == "Daily news")
        #expect(renamed.object["tags"] as? [String] == ["press"])
        let byTag = try await Self.call("GET", "/admin/v1/channels?tag=press", port: port)
        #expect((byTag.json as? [[String: Any]])?.compactMap { $0["channelId"] as? String } == ["news"])
        let news = try await Self.call("GET", "/admin/v1/channels/news", port: port)
        #expect(news.status == 200)
        #expect(news.object["channelId"] as? String == "news")
        #expect((news.object["members"] as? [[String: Any]])?.count == 2)
        #expect((news.object["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["<b>hello</b>"])
        #expect(try await Self.call("GET", "/admin/v1/channels/nothing", port: port).status == 404)
        // A message as a user who may not send there is refused as that user would be.
        let outsider = try await Self.call(
            "POST", "/admin/v1/channels/news/messages", port: port, body: ["userId": "boss2", "text": "x"])
        #expect(outsider.status >= 400 && outsider.status < 500)

        // Found by a part of the id or name, ignoring case; a bad limit is named.
        let found = try await Self.call("GET", "/admin/v1/users?query=AN", port: port)
        #expect((found.json as? [[String: Any]])?.compactMap { $0["userId"] as? String } == ["ann"])
        let channels = try await Self.call("GET", "/admin/v1/channels?query=NEW&limit=5", port: port)
        #expect((channels.json as? [[String: Any]])?.compactMap { $0["channelId"] as? String } == ["news"])
        #expect(try await Self.call("GET", "/admin/v1/channels?query=zzz", port: port).json as? [Any] != nil)
        let badLimit = try await Self.call("GET", "/admin/v1/users?limit=1000", port: port)
        #expect(badLimit.status == 400)
        #expect(
            ((badLimit.object["error"] as? [String: Any])?["invalidArgument"] as? [String: Any])?["field"] as? String
                == "limit")

        // What a member flags reaches the moderation queue, with its channel.
        let messageId = try #require(sent.object["messageId"] as? String)
        _ = try await stranger.send(.flagMessage(channelId: "news", messageId: messageId))
        let flags = try await Self.call("GET", "/admin/v1/flags", port: port)
        let report = try #require((flags.json as? [[String: Any]])?.first)
        #expect(report["channelId"] as? String == "news")
        #expect(report["flaggedBy"] as? [String] == ["eve"])
        // Resolved: dismissed, it leaves the queue.
        #expect(
            try await Self.call("DELETE", "/admin/v1/flags/news/messages/\(messageId)", port: port).status == 204)
        #expect((try await Self.call("GET", "/admin/v1/flags", port: port).json as? [Any])?.isEmpty == true)
        #expect(try await Self.call("DELETE", "/admin/v1/flags/news/users/eve", port: port).status == 404)

        // Moderation: a mute, a deleted message, a ban and its lifting, a removal.
        let muted = try await Self.call(
            "POST", "/admin/v1/channels/news/mutes", port: port, body: ["userIds": ["eve"], "period": 3600])
        #expect(muted.status == 200)
        #expect(
            (muted.json as? [[String: Any]])?.first { $0["userId"] as? String == "eve" }?["isMuted"] as? Bool == true)
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news/mutes/eve", port: port).status == 204)
        let removed = try await Self.call("DELETE", "/admin/v1/channels/news/messages/\(messageId)", port: port)
        #expect(removed.status == 200)
        #expect(removed.object["isDeleted"] as? Bool == true)
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news/messages/nope", port: port).status == 404)
        let banned = try await Self.call(
            "POST", "/admin/v1/channels/news/bans", port: port, body: ["userIds": ["ann"]])
        #expect(
            (banned.json as? [[String: Any]])?.first { $0["userId"] as? String == "ann" }?["membership"] as? String
                == "banned")
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news/bans/ann", port: port).status == 204)
        // Content filters: set, read back, bad input named.
        let filters = try await Self.call(
            "PUT", "/admin/v1/channels/news/moderation", port: port,
            body: ["blockedWords": [" spam "], "allowedURLDomains": ["Example.COM"]])
        #expect(filters.status == 200)
        #expect(filters.object["blockedWords"] as? [String] == ["spam"])
        #expect(filters.object["allowedURLDomains"] as? [String] == ["example.com"])
        #expect(
            try await Self.call("GET", "/admin/v1/channels/news/moderation", port: port).object["blockedWords"]
                as? [String] == ["spam"])
        let badFilter = try await Self.call(
            "PUT", "/admin/v1/channels/news/moderation", port: port, body: ["blockedWords": [""]])
        #expect(badFilter.status == 400)
        #expect(
            ((badFilter.object["error"] as? [String: Any])?["invalidArgument"] as? [String: Any])?["field"] as? String
                == "blockedWords")
        #expect(try await Self.call("GET", "/admin/v1/channels/nope/moderation", port: port).status == 404)
        #expect(try await Self.call("GET", "/admin/v1/users/ann", port: port).object["channels"] as? [String] == [])

        // eve's device and channel show on her user.
        let eve = try await Self.call("GET", "/admin/v1/users/eve", port: port)
        #expect(eve.object["channels"] as? [String] == ["news"])
        let devices = try #require(eve.object["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        #expect(devices.first?["isConnected"] as? Bool == true)
        // An admin ends eve's connection; a second time, there is none.
        let deviceId = try #require(devices.first?["deviceId"] as? String)
        #expect(try await Self.call("DELETE", "/admin/v1/users/eve/devices/\(deviceId)", port: port).status == 204)
        #expect(try await Self.call("DELETE", "/admin/v1/users/eve/devices/\(deviceId)", port: port).status == 404)
        let after = try await Self.call("GET", "/admin/v1/users/eve", port: port)
        #expect((after.object["devices"] as? [[String: Any]])?.first?["isConnected"] as? Bool == false)
        await stranger.disconnect()
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news/members/eve", port: port).status == 204)
        #expect(try await Self.call("GET", "/admin/v1/users/eve", port: port).object["channels"] as? [String] == [])

        // A ban from the service: eve's connection ends, and her next connect is refused with
        // 403 until the ban is lifted.
        let again = ChatServerProcess.transport("eve", port: port)
        _ = try await again.connect(resumingAfter: nil)
        #expect(try await Self.call("GET", "/admin/v1/users/eve", port: port).object["bannedAt"] is NSNull)
        let ban = try await Self.call("POST", "/admin/v1/users/eve/ban", port: port)
        #expect(ban.status == 200)
        #expect(ban.object["bannedAt"] is Double)
        #expect((ban.object["devices"] as? [[String: Any]])?.allSatisfy { $0["isConnected"] as? Bool == false } == true)
        let refusedDevice = ChatServerProcess.transport("eve", port: port)
        do {
            _ = try await refusedDevice.connect(resumingAfter: nil)
            Issue.record("a banned user connected")
        } catch {
            guard case .forbidden? = error as? ChatError else {
                Issue.record("a banned user's connect failed with \(error), not forbidden")
                return
            }
        }
        #expect(try await Self.call("POST", "/admin/v1/users/nobody/ban", port: port).status == 404)
        #expect(try await Self.call("DELETE", "/admin/v1/users/eve/ban", port: port).status == 204)
        let unbanned = ChatServerProcess.transport("eve", port: port)
        _ = try await unbanned.connect(resumingAfter: nil)
        await unbanned.disconnect()
        await again.disconnect()

        // Deleted: it stays readable as deleted, and refuses a second delete.
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news", port: port).status == 204)
        #expect(try await Self.call("GET", "/admin/v1/channels/news", port: port).object["isDeleted"] as? Bool == true)
        #expect(try await Self.call("DELETE", "/admin/v1/channels/news", port: port).status == 409)
    }

    /// The shape of a JSON answer: an object's keys (and the shapes of their values), whether an
    /// array is empty and its first element's shape; a scalar counts as itself only at the top (a status
    /// code), nested ones (dates, versions) only as scalars.
    static func shape(_ json: Any?, top: Bool = true) -> String {
        switch json {
        case let object as [String: Any]:
            return "{" + object.keys.sorted().map { "\($0):\(shape(object[$0], top: false))" }.joined(separator: ",")
                + "}"
        case let array as [Any]:
            // Empty or not, and the first element's shape (a history's length depends on when).
            return array.isEmpty ? "[]" : "[…×\(shape(array[0], top: false))]"
        case .some(let scalar):
            return top ? "\(scalar)" : "scalar"
        case nil:
            return "nothing"
        }
    }

    @Test func everyCurlOfTheDocumentRunsAsWritten() async throws {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Docs/Admin.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let examples = text.matches(of: /```sh\n(curl[^\n]*)\n```\n\n```json\n([^\n]*)\n```/).map {
            (command: String($0.1), answer: String($0.2))
        }
        #expect(examples.count >= 10, "the curl examples of Docs/Admin.md")
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        for example in examples {
            let command = example.command.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
            let curl = try Subprocess(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
            var lines: [String] = []
            for await line in curl.lines { lines.append(line) }
            #expect(await curl.exitStatus() == 0, "\(example.command): \(curl.standardError)")
            let output = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            let shown = try JSONSerialization.jsonObject(with: Data(example.answer.utf8), options: .fragmentsAllowed)
            let got = try? JSONSerialization.jsonObject(with: Data(output.utf8), options: .fragmentsAllowed)
            #expect(Self.shape(got) == Self.shape(shown), "\(example.command) answered \(output)")
        }
    }

    @Test func everyNodeOfAClusterAnswersTheSame() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let (first, port0) = try await ChatServerProcess.start([
                "--postgres", url, "--node-id", "n0", "--admin", "boss",
            ])
            defer { first.stop() }
            let (second, port1) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n1"])
            defer { second.stop() }
            // Made through one node, read at once through the other.
            #expect(try await Self.call("POST", "/admin/v1/users", port: port0, body: ["userId": "ann"]).status == 201)
            let created = try await Self.call(
                "POST", "/admin/v1/channels", port: port1,
                body: ["type": "community", "channelId": "c", "userIds": ["ann"]])
            #expect(created.status == 201)
            #expect(
                try await Self.call("GET", "/admin/v1/users/ann", port: port1).object["channels"] as? [String] == ["c"])
            let sent = try await Self.call(
                "POST", "/admin/v1/channels/c/messages", port: port1, body: ["userId": "ann", "text": "hi"])
            #expect(sent.status == 201)
            let read = try await Self.call("GET", "/admin/v1/channels/c", port: port0)
            #expect((read.object["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["hi"])
            // A moderation through one node (an entry of the log) is in force on the other.
            #expect(
                try await Self.call("POST", "/admin/v1/channels/c/bans", port: port1, body: ["userIds": ["ann"]]).status
                    == 200)
            let members = try await Self.call("GET", "/admin/v1/channels/c", port: port0).object["members"]
            #expect((members as? [[String: Any]])?.first?["membership"] as? String == "banned")
            // The service as each node counts it: ann's device on n1, and both nodes live.
            let ann = ChatServerProcess.transport("ann", port: port1)
            _ = try await ann.connect(resumingAfter: nil)
            for port in [port0, port1] {
                let service = try await Self.call("GET", "/admin/v1/service", port: port).object
                #expect(service["connectedDevices"] as? Int == 1)
                #expect(
                    (service["nodes"] as? [[String: Any]])?.map {
                        "\($0["nodeId"] ?? "")=\($0["connectedDevices"] ?? "")"
                    }
                        == ["n0=0", "n1=1"])
            }
            await ann.disconnect()
        }
    }
}
