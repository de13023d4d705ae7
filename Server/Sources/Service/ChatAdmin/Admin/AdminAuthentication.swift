import ChatGateway
import ChatAPI
import ChatServer
import Hummingbird
import Logging

/// The admin API's door (``AdminRoutes``), for an app's backend and for the console:
///
/// - `Authorization: Bearer TOKEN` of an admin user (`--admin`, or `registerUser(isAdmin:)`;
///   `dev:<admin>` in `--dev` mode), or
/// - the console's session cookie (``ConsoleSessions``), which a browser sends by itself: so a
///   change made with it (any method but `GET` and `HEAD`) must also come from the console's own
///   page (``SameOrigin``), and a cross-site form post or `fetch` is refused with 403.
///
/// No token or session, or one that is refused: 401 `unauthorized`; a user who is not an admin:
/// 403 `forbidden`. Every call admitted is counted (`chat_admin_requests_total`) and logged with
/// the admin's id.
struct AdminAuthentication<Context: RequestContext>: RouterMiddleware {
    let authority: TokenAuthority
    let sessions: ConsoleSessions
    let server: ChatServer
    let metrics: GatewayMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let userId: String
        do throws(ChatError) {
            userId = try await caller(of: request)
            try await Self.checkAdmin(userId, on: server)
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

    /// The user a request acts for: its bearer token's, else its console session's.
    private func caller(of request: Request) async throws(ChatError) -> String {
        if let token = ConnectAdmission.bearer(request.headers[.authorization]) {
            return try await authority.identity(for: token).userId
        }
        guard let session = ConsoleSessions.value(inCookieHeader: request.headers[.cookie]) else {
            throw .unauthorized("the admin API needs an admin's token: Authorization: Bearer TOKEN")
        }
        guard let userId = await sessions.userId(of: session) else {
            throw .unauthorized("the console session ended: sign in again")
        }
        if request.method != .get && request.method != .head && !SameOrigin.check(request.head) {
            throw .forbidden("a change with a console session must come from the console's own page")
        }
        return userId
    }

    /// - Throws: `forbidden` when `userId` is not an admin (on a node of a cluster, after
    ///   catching up: an admin made a moment ago on another node is one).
    static func checkAdmin(_ userId: String, on server: ChatServer) async throws(ChatError) {
        if server.user(userId)?.isAdmin == true { return }
        try await server.awaitCommitted()
        guard server.user(userId)?.isAdmin == true else {
            throw .forbidden("user '\(userId)' is not an admin")
        }
    }
}
