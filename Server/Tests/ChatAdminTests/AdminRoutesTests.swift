import ChatAPI
import ChatServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import ChatAdmin
import ChatGateway

/// The admin API (`Docs/Admin.md`) in process, through Hummingbird's router test framework: the
/// routes as `ChatAdmin` mounts them (``AdminRoutes/mount(on:server:authority:sessions:history:metrics:logger:)``),
/// with no socket — every resource answers as documented, and every refusal changes nothing.
/// The process tests (`AdminAPITests`, `AdminEdgeTests`) keep what needs a real connection.
@Suite(.timeLimit(.minutes(1))) struct AdminRoutesTests {
    /// What an answer holds: its status, headers, and its JSON.
    struct Answer {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var json: Any?
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
        /// The kind of the error in `{"error":{KIND:…}}`.
        var errorKind: String? { (object["error"] as? [String: Any])?.keys.first }
    }

    /// Runs `test` against the admin API of a new in-memory server whose admin is boss.
    static func withAPI(_ test: @Sendable (ChatServer, any TestClientProtocol) async throws -> Void) async throws {
        let server = ChatServer()
        _ = try await server.registerUser(id: "boss", isAdmin: true)
        let router = Router(context: GatewayRequestContext.self)
        AdminRoutes.mount(
            on: router, server: server, authority: try await TokenAuthority(secret: nil, allowsDevTokens: true),
            sessions: await ConsoleSessions(secret: nil), history: ServiceHistory(server: server),
            metrics: GatewayMetrics(), logger: Logger(label: "admin-test"))
        try await Application(router: router).test(.router) { client in try await test(server, client) }
        await server.close()
    }

    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, token: String? = "dev:boss",
        body: [String: Any]? = nil, raw: String? = nil
    ) async throws -> Answer {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let bytes = try raw.map { Data($0.utf8) } ?? body.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await client.execute(
            uri: "/admin/v1" + path, method: method, headers: headers, body: bytes.map { ByteBuffer(bytes: $0) }
        ) { response in
            let data = Data(buffer: response.body)
            return Answer(
                status: response.status, headers: response.headers,
                json: data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data))
        }
    }

    @Test func everyResourceAnswersAsDocumented() async throws {
        try await Self.withAPI { server, client in
            // Users: made (201, then 200 for the same id), read, found.
            #expect(
                try await Self.call(client, .post, "/users", body: ["userId": "ann", "displayName": "Ann"]).status
                    == .created)
            #expect(try await Self.call(client, .post, "/users", body: ["userId": "ann"]).status == .ok)
            #expect(try await Self.call(client, .post, "/users", body: ["userId": "eve"]).status == .created)
            let ann = try await Self.call(client, .get, "/users/ann")
            #expect(ann.status == .ok && ann.object["userId"] as? String == "ann")
            #expect(ann.object["devices"] != nil && ann.object["channels"] != nil && ann.object["pushDevices"] != nil)
            #expect(
                try await Self.call(client, .get, "/users?query=an").array.compactMap { $0["userId"] as? String } == [
                    "ann"
                ])

            // Channels: made, changed, found by tag, read with members and messages.
            let made = try await Self.call(
                client, .post, "/channels", body: ["type": "community", "channelId": "news", "userIds": ["ann"]])
            #expect(made.status == .created && made.object["channelId"] as? String == "news")
            let patched = try await Self.call(
                client, .patch, "/channels/news", body: ["displayName": "News", "tags": ["press"]])
            #expect(patched.status == .ok && patched.object["displayName"] as? String == "News")
            #expect(
                try await Self.call(client, .get, "/channels?tag=press").array.compactMap { $0["channelId"] as? String }
                    == ["news"])
            let members = try await Self.call(client, .post, "/channels/news/members", body: ["userIds": ["eve"]])
            #expect(Set(members.array.compactMap { $0["userId"] as? String }) == ["ann", "eve"])

            // Messages: sent as a user, deleted.
            let sent = try await Self.call(
                client, .post, "/channels/news/messages", body: ["userId": "ann", "text": "hi"])
            #expect(sent.status == .created && sent.object["text"] as? String == "hi")
            let messageId = try #require(sent.object["messageId"] as? String)
            let news = try await Self.call(client, .get, "/channels/news")
            #expect((news.object["members"] as? [Any])?.count == 2 && (news.object["messages"] as? [Any])?.count == 1)
            let deleted = try await Self.call(client, .delete, "/channels/news/messages/\(messageId)")
            #expect(deleted.status == .ok && deleted.object["isDeleted"] as? Bool == true)

            // Moderation: mutes, bans, content filters.
            let muted = try await Self.call(
                client, .post, "/channels/news/mutes", body: ["userIds": ["eve"], "period": 60])
            #expect(muted.array.first { $0["userId"] as? String == "eve" }?["isMuted"] as? Bool == true)
            #expect(try await Self.call(client, .delete, "/channels/news/mutes/eve").status == .noContent)
            #expect(server.members(channelId: "news").first { $0.userId == "eve" }?.isMuted == false)
            let banned = try await Self.call(client, .post, "/channels/news/bans", body: ["userIds": ["eve"]])
            #expect(banned.array.first { $0["userId"] as? String == "eve" }?["membership"] as? String == "banned")
            #expect(try await Self.call(client, .delete, "/channels/news/bans/eve").status == .noContent)
            let filters = try await Self.call(
                client, .put, "/channels/news/moderation", body: ["blockedWords": ["spam"]])
            #expect(filters.status == .ok)
            #expect(
                try await Self.call(client, .get, "/channels/news/moderation").object["blockedWords"] as? [String]
                    == ["spam"])
            #expect(try await Self.call(client, .delete, "/channels/news/members/ann").status == .noContent)
            #expect(server.members(channelId: "news").allSatisfy { $0.userId != "ann" })

            // The service: banned and unbanned, flags, figures.
            let serviceBan = try await Self.call(client, .post, "/users/eve/ban")
            #expect(serviceBan.status == .ok && serviceBan.object["bannedAt"] != nil)
            #expect(try await Self.call(client, .delete, "/users/eve/ban").status == .noContent)
            #expect(try await Self.call(client, .get, "/users/eve").object["bannedAt"] is NSNull)
            #expect(try await Self.call(client, .get, "/flags").array.isEmpty)
            // A device disconnected: once, then it is not connected any more.
            let phone = server.connection(userId: "ann", deviceId: "phone")
            _ = try await phone.connect(resumingAfter: nil)
            #expect(try await Self.call(client, .delete, "/users/ann/devices/phone").status == .noContent)
            #expect(try await Self.call(client, .delete, "/users/ann/devices/phone").status == .notFound)
            let service = try await Self.call(client, .get, "/service")
            #expect(service.status == .ok && !service.object.isEmpty)
            #expect(try await Self.call(client, .get, "/service/history").status == .ok)
            #expect(try await Self.call(client, .delete, "/channels/news").status == .noContent)
            #expect(server.channel("news")?.isDeleted != false)
        }
    }

    @Test func refusalsSayWhyAndChangeNothing() async throws {
        try await Self.withAPI { server, client in
            _ = try await Self.call(client, .post, "/users", body: ["userId": "eve"])
            let cases: [(HTTPRequest.Method, String, String?, String?, HTTPResponse.Status, String)] = [
                (.get, "/users/boss", nil, nil, .unauthorized, "unauthorized"),
                (.get, "/users/boss", "dev:eve", nil, .forbidden, "forbidden"),
                (.post, "/users", "dev:boss", #"{"userId":"#, .badRequest, "invalidArgument"),
                (.post, "/users", "dev:boss", #"{"userId":""}"#, .badRequest, "invalidArgument"),
                (.get, "/users/nobody", "dev:boss", nil, .notFound, "notFound"),
                (.get, "/users/%FF", "dev:boss", nil, .badRequest, "invalidArgument"),
                (.get, "/users?limit=0", "dev:boss", nil, .badRequest, "invalidArgument"),
                (.get, "/channels/none", "dev:boss", nil, .notFound, "notFound"),
                (.post, "/channels/none/messages", "dev:boss", #"{"userId":"eve","text":"x"}"#, .notFound, "notFound"),
                (.post, "/channels", "dev:boss", #"{"type":"nonsense"}"#, .badRequest, "invalidArgument"),
            ]
            for (method, path, token, raw, status, kind) in cases {
                let answer = try await Self.call(client, method, path, token: token, raw: raw)
                #expect(answer.status == status && answer.errorKind == kind, "\(method) \(path): \(answer)")
                #expect(answer.headers[.cacheControl] == "no-store", "\(method) \(path)")
                #expect(answer.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(method) \(path)")
            }
            #expect(server.user("nobody") == nil && server.channel("none") == nil)
            #expect(server.findUsers(matching: "", limit: 100).map(\.userId).sorted() == ["boss", "eve"])
        }
    }
}
