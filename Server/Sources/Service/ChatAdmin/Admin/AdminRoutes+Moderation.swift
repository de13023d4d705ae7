import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The admin API's routes for a channel's moderation: bans, mutes, its content filters (`Docs/Admin.md`).
extension AdminRoutes {
    /// `POST /admin/v1/channels/{channelId}/mutes`.
    struct NewMutes: Decodable {
        var userIds: [String]
        /// Seconds (`-1`: until unmuted).
        var period: Double
    }

    func registerModeration<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
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
                try await server.awaitCommitted()
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
    }
}
