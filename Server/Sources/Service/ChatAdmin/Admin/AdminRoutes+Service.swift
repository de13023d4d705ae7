import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The admin API's routes for the service's figures and the flag queue (`Docs/Admin.md`).
extension AdminRoutes {
    func registerService<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
        let history = history
        group.get("service") { _, _ in
            await AdminJSON.answer {
                try await server.awaitCommitted()
                return try AdminJSON.response(server.serviceSummary())
            }
        }
        group.get("service/history") { _, _ in
            await AdminJSON.answer { try AdminJSON.response(history.answer) }
        }
        group.get("flags") { _, _ in
            await AdminJSON.answer {
                try await server.awaitCommitted()
                return try AdminJSON.response(server.flagReports())
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
    }
}
