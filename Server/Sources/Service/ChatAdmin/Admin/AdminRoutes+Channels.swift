import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The admin API's routes for channels: found, read, made, changed, deleted, and their members (`Docs/Admin.md`).
extension AdminRoutes {
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

    func registerChannels<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
        group.get("channels") { request, _ in
            await AdminJSON.answer {
                let limit = try Self.limit(of: request)
                try await server.awaitCommitted()
                let text = request.uri.queryParameters["query"].map(String.init) ?? ""
                let tag = request.uri.queryParameters["tag"].map(String.init)
                return try AdminJSON.response(server.findChannels(matching: text, tag: tag, limit: limit))
            }
        }
        group.get("channels/{channelId}") { _, context in
            await AdminJSON.answer {
                let channelId = try Self.parameter("channelId", of: context)
                try await server.awaitCommitted()
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
                try await server.awaitCommitted()
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
    }
}
