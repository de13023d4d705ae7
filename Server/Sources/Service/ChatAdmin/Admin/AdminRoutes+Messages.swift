import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The admin API's routes for a channel's messages: sent as a user (a system message), deleted (`Docs/Admin.md`).
extension AdminRoutes {
    /// `POST /admin/v1/channels/{channelId}/messages`.
    struct NewMessage: Decodable {
        var userId: String
        var text: String
        var mentionedUserIds: [String]?
    }

    func registerMessages<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
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
        group.delete("channels/{channelId}/messages/{messageId}") { _, context in
            await AdminJSON.answer {
                let message = try await server.deleteMessage(
                    try Self.parameter("messageId", of: context), in: try Self.parameter("channelId", of: context))
                return try AdminJSON.response(message)
            }
        }
    }
}
