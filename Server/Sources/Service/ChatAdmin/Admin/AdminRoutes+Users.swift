import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird

/// The admin API's routes for users: found, read, made, banned from the service, a device disconnected (`Docs/Admin.md`).
extension AdminRoutes {
    /// `POST /admin/v1/users`.
    struct NewUser: Decodable {
        var userId: String
        var displayName: String?
        var isAdmin: Bool?
    }

    func registerUsers<Context: RequestContext>(on group: RouterGroup<Context>) {
        let server = server
        group.get("users") { request, _ in
            await AdminJSON.answer {
                let limit = try Self.limit(of: request)
                try await server.awaitCommitted()
                let text = request.uri.queryParameters["query"].map(String.init) ?? ""
                return try AdminJSON.response(server.findUsers(matching: text, limit: limit))
            }
        }
        group.get("users/{userId}") { _, context in
            await AdminJSON.answer {
                let userId = try Self.parameter("userId", of: context)
                try await server.awaitCommitted()
                return try Self.userDetails(userId, on: server)
            }
        }
        group.post("users") { request, _ in
            await AdminJSON.answer {
                let body = try await AdminJSON.body(NewUser.self, of: request)
                try await server.awaitCommitted()
                let existed = server.user(body.userId) != nil
                let user = try await server.registerUser(
                    id: body.userId, displayName: body.displayName, isAdmin: body.isAdmin ?? false)
                return try AdminJSON.response(user, status: existed ? .ok : .created)
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
        group.delete("users/{userId}/devices/{deviceId}") { _, context in
            await AdminJSON.answer {
                try await server.disconnect(
                    userId: try Self.parameter("userId", of: context),
                    deviceId: try Self.parameter("deviceId", of: context))
                return Response(status: .noContent)
            }
        }
    }
}
