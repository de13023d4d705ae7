import ChatAPI
import ChatServer
import Hummingbird
import Logging

/// The admin API's door (``AdminRoutes``): `Authorization: Bearer TOKEN` of an admin user
/// (`--admin`, or `registerUser(isAdmin:)`; `dev:<admin>` in `--dev` mode). No token, or one the
/// authority refuses: 401 `unauthorized`; a valid token of a user who is not an admin: 403
/// `forbidden`. Every call admitted is counted (`chat_admin_requests_total`) and logged with the
/// admin's id.
struct AdminAuthentication<Context: RequestContext>: RouterMiddleware {
    let authority: TokenAuthority
    let server: ChatServer
    let metrics: GatewayMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let userId: String
        do throws(ChatError) {
            guard let token = ConnectAdmission.bearer(request.headers[.authorization]) else {
                throw .unauthorized("the admin API needs an admin's token: Authorization: Bearer TOKEN")
            }
            userId = try await authority.identity(for: token).userId
            if server.user(userId)?.isAdmin != true {
                // On a node of a cluster, an admin made a moment ago on another node.
                try await server.catchUp()
                guard server.user(userId)?.isAdmin == true else {
                    throw .forbidden("user '\(userId)' is not an admin")
                }
            }
        } catch {
            return AdminJSON.refusal(error)
        }
        let response = try await next(request, context)
        metrics.adminRequest()
        logger.info(
            "admin call",
            metadata: [
                "admin": "\(userId)", "method": "\(request.method)", "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
            ])
        return response
    }
}
