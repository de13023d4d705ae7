import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The server-side HTTP API under `/admin/v1/` (`Docs/Admin.md`), for an app's backend and the
/// console: thin routes over the engine's console calls (``ChatServer``), which apply the same
/// rules on one node and on a cluster (a change goes through the cluster's log; a read first
/// catches up with every change acknowledged anywhere). Admission is ``AdminAuthentication``'s;
/// bodies and answers are ``AdminJSON``'s.
struct AdminRoutes {
    let server: ChatServer
    /// The service's figures over the last 15 minutes (`GET /admin/v1/service/history`).
    let history: ServiceHistory

    /// `POST /admin/v1/users`.
    struct NewUser: Decodable {
        var userId: String
        var displayName: String?
        var isAdmin: Bool?
    }

    /// `POST /admin/v1/channels`.
    struct NewChannel: Decodable {
        var type: ChannelType
        var channelId: String?
        var displayName: String?
        var userIds: [String]?
        var tags: [String]?
        var metadata: [String: JSON]?
    }

    /// `PATCH /admin/v1/channels/{channelId}`: the fields to change (the others stay).
    struct ChannelPatch: Decodable {
        var displayName: String?
        var avatarFileId: String?
        var tags: [String]?
        var metadata: [String: JSON]?
    }

    /// `POST /admin/v1/channels/{channelId}/members`.
    struct NewMembers: Decodable {
        var userIds: [String]
    }

    /// `POST /admin/v1/channels/{channelId}/messages`.
    struct NewMessage: Decodable {
        var userId: String
        var text: String
        var mentionedUserIds: [String]?
    }

    /// `POST /admin/v1/channels/{channelId}/mutes`.
    struct NewMutes: Decodable {
        var userIds: [String]
        /// Seconds (`-1`: until unmuted).
        var period: Double
    }

    /// How many of a channel's newest messages `GET /admin/v1/channels/{channelId}` shows.
    static let recentMessages = 50

    /// The `limit` query parameter: 1 to 100, default 50.
    static func limit(of request: Request) throws(ChatError) -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return 50 }
        guard let limit = Int(String(text)), (1...100).contains(limit) else {
            throw .invalidArgument(field: "limit", reason: "must be a number from 1 to 100")
        }
        return limit
    }

    /// The path parameter `name`, percent-decoded: ids are any text (an e-mail address, `team:design`,
    /// a space, non-ASCII), and the console and clients encode each path segment, so
    /// `users/lena.k%40example.com` names the user `lena.k@example.com`.
    ///
    /// - Throws: `invalidArgument` for a segment that is not valid percent-encoded UTF-8.
    static func parameter(_ name: String, of context: some RequestContext) throws(ChatError) -> String {
        guard let raw = context.parameters.get(name) else {
            throw .invalidArgument(field: name, reason: "is missing from the path")
        }
        guard let decoded = percentDecoded(raw) else {
            throw .invalidArgument(field: name, reason: "is not valid percent-encoded UTF-8")
        }
        return decoded
    }

    /// `text` with each `%XX` replaced by its byte, or `nil` when a `%` is not followed by two
    /// hex digits or the bytes are not UTF-8 (strict, where Foundation's decoding lets some pass).
    ///
    /// - Complexity: O(`text.utf8.count`).
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            guard let byte else { return nil }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = hex(input.next()), let low = hex(input.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A user with their devices, channels, push tokens and service ban (`bannedAt`, `null` when
    /// not banned).
    static func userDetails(_ userId: String, on server: ChatServer) throws -> Response {
        guard let user = server.user(userId) else { throw ChatError.notFound("user '\(userId)'") }
        return try AdminJSON.object(
            user,
            adding: [
                "devices": server.devices(userId: userId), "channels": server.channelIds(memberOf: userId),
                "bannedAt": server.serviceBan(of: userId), "pushDevices": server.pushDevices(userId: userId),
            ])
    }

    func register<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
        group.get("users") { request, _ in
            await AdminJSON.answer {
                let limit = try Self.limit(of: request)
                try await server.catchUp()
                let text = request.uri.queryParameters["query"].map(String.init) ?? ""
                return try AdminJSON.response(server.findUsers(matching: text, limit: limit))
            }
        }
        group.get("channels") { request, _ in
            await AdminJSON.answer {
                let limit = try Self.limit(of: request)
                try await server.catchUp()
                let text = request.uri.queryParameters["query"].map(String.init) ?? ""
                let tag = request.uri.queryParameters["tag"].map(String.init)
                return try AdminJSON.response(server.findChannels(matching: text, tag: tag, limit: limit))
            }
        }
        let history = history
        group.get("service/history") { _, _ in
            await AdminJSON.answer { try AdminJSON.response(history.answer) }
        }
        group.get("service") { _, _ in
            await AdminJSON.answer {
                try await server.catchUp()
                return try AdminJSON.response(server.serviceSummary())
            }
        }
        group.delete("flags/{channelId}/messages/{messageId}") { _, context in
            await AdminJSON.answer {
                try await server.dismissFlags(
                    of: .message(messageId: try Self.parameter("messageId", of: context)),
                    in: try Self.parameter("channelId", of: context))
                return Response(status: .noContent)
            }
        }
        group.delete("flags/{channelId}/users/{userId}") { _, context in
            await AdminJSON.answer {
                try await server.dismissFlags(
                    of: .user(userId: try Self.parameter("userId", of: context)),
                    in: try Self.parameter("channelId", of: context))
                return Response(status: .noContent)
            }
        }
        group.get("flags") { _, _ in
            await AdminJSON.answer {
                try await server.catchUp()
                return try AdminJSON.response(server.flagReports())
            }
        }
        group.get("users/{userId}") { _, context in
            await AdminJSON.answer {
                let userId = try Self.parameter("userId", of: context)
                try await server.catchUp()
                return try Self.userDetails(userId, on: server)
            }
        }
        group.post("users/{userId}/ban") { _, context in
            await AdminJSON.answer {
                let userId = try Self.parameter("userId", of: context)
                try await server.banUser(userId)
                return try Self.userDetails(userId, on: server)
            }
        }
        group.delete("users/{userId}/ban") { _, context in
            await AdminJSON.answer {
                try await server.unbanUser(try Self.parameter("userId", of: context))
                return Response(status: .noContent)
            }
        }
        group.post("users") { request, _ in
            await AdminJSON.answer {
                let body = try await AdminJSON.body(NewUser.self, of: request)
                try await server.catchUp()
                let existed = server.user(body.userId) != nil
                let user = try await server.registerUser(
                    id: body.userId, displayName: body.displayName, isAdmin: body.isAdmin ?? false)
                return try AdminJSON.response(user, status: existed ? .ok : .created)
            }
        }
        group.delete("users/{userId}/devices/{deviceId}") { _, context in
            await AdminJSON.answer {
                try await server.disconnect(
                    userId: try Self.parameter("userId", of: context),
                    deviceId: try Self.parameter("deviceId", of: context))
                return Response(status: .noContent)
            }
        }
        group.get("channels/{channelId}") { _, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                try await server.catchUp()
                guard let channel = server.channel(channelId) else {
                    throw ChatError.notFound("channel '\(channelId)'")
                }
                return try AdminJSON.object(
                    channel,
                    adding: [
                        "members": server.members(channelId: channelId),
                        "messages": Array(server.messages(channelId: channelId).suffix(Self.recentMessages)),
                    ])
            }
        }
        group.post("channels") { request, _ in
            await AdminJSON.answer {
                let body = try await AdminJSON.body(NewChannel.self, of: request)
                let channel = try await server.createChannel(
                    type: body.type, channelId: body.channelId, displayName: body.displayName,
                    userIds: body.userIds ?? [], tags: body.tags ?? [], metadata: body.metadata ?? [:])
                return try AdminJSON.response(channel, status: .created)
            }
        }
        group.patch("channels/{channelId}") { request, context in
            await AdminJSON.answer {
                let body = try await AdminJSON.body(ChannelPatch.self, of: request)
                let channel = try await server.updateChannel(
                    ChannelChanges(
                        channelId: try Self.parameter("channelId", of: context), displayName: body.displayName,
                        avatarFileId: body.avatarFileId, tags: body.tags, metadata: body.metadata))
                return try AdminJSON.response(channel)
            }
        }
        group.delete("channels/{channelId}") { _, context in
            await AdminJSON.answer {
                try await server.deleteChannel(try Self.parameter("channelId", of: context))
                return Response(status: .noContent)
            }
        }
        group.post("channels/{channelId}/members") { request, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                let body = try await AdminJSON.body(NewMembers.self, of: request)
                try await server.addMembers(body.userIds, to: channelId)
                try await server.catchUp()
                return try AdminJSON.response(server.members(channelId: channelId))
            }
        }
        group.delete("channels/{channelId}/members/{userId}") { _, context in
            await AdminJSON.answer {
                try await server.removeMembers(
                    [try Self.parameter("userId", of: context)], from: try Self.parameter("channelId", of: context))
                return Response(status: .noContent)
            }
        }
        group.post("channels/{channelId}/bans") { request, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                let body = try await AdminJSON.body(NewMembers.self, of: request)
                try await server.banMembers(body.userIds, in: channelId)
                return try AdminJSON.response(server.members(channelId: channelId))
            }
        }
        group.delete("channels/{channelId}/bans/{userId}") { _, context in
            await AdminJSON.answer {
                try await server.unbanMembers(
                    [try Self.parameter("userId", of: context)], in: try Self.parameter("channelId", of: context))
                return Response(status: .noContent)
            }
        }
        group.post("channels/{channelId}/mutes") { request, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                let body = try await AdminJSON.body(NewMutes.self, of: request)
                try await server.muteMembers(body.userIds, in: channelId, for: body.period)
                return try AdminJSON.response(server.members(channelId: channelId))
            }
        }
        group.delete("channels/{channelId}/mutes/{userId}") { _, context in
            await AdminJSON.answer {
                try await server.muteMembers(
                    [try Self.parameter("userId", of: context)], in: try Self.parameter("channelId", of: context),
                    for: nil)
                return Response(status: .noContent)
            }
        }
        group.get("channels/{channelId}/moderation") { _, context in
            await AdminJSON.answer {
                try await server.catchUp()
                return try AdminJSON.response(
                    server.moderationSettings(of: try Self.parameter("channelId", of: context)))
            }
        }
        group.put("channels/{channelId}/moderation") { request, context in
            await AdminJSON.answer {
                let settings = try await AdminJSON.body(ModerationSettings.self, of: request)
                return try AdminJSON.response(
                    try await server.setModerationSettings(settings, of: try Self.parameter("channelId", of: context)))
            }
        }
        group.delete("channels/{channelId}/messages/{messageId}") { _, context in
            await AdminJSON.answer {
                let message = try await server.deleteMessage(
                    try Self.parameter("messageId", of: context), in: try Self.parameter("channelId", of: context))
                return try AdminJSON.response(message)
            }
        }
        group.post("channels/{channelId}/messages") { request, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                let body = try await AdminJSON.body(NewMessage.self, of: request)
                let message = try await server.sendMessage(
                    as: body.userId, channelId: channelId, text: body.text,
                    mentionedUserIds: body.mentionedUserIds ?? [])
                return try AdminJSON.response(message, status: .created)
            }
        }
    }
}
