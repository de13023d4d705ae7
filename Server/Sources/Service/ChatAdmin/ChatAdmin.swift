import ChatAPI
import ChatGateway
import ChatServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// The admin role of a node, served by its gateway beside the WebSocket front
/// (``ChatGateway/GatewayAddition``): the server-side API for an app's backend under
/// `/admin/v1/` (`Docs/Admin.md`, ``AdminRoutes``), and the operator's console at `/console`
/// (``ConsoleRoutes``: pages compiled into the binary, sign-in sessions of their own, the
/// figures its overview draws). Admins only.
public struct ChatAdmin: GatewayAddition {
    private let server: ChatServer
    private let authority: TokenAuthority
    private let metrics: GatewayMetrics
    private let logger: Logger
    /// The console's sign-in sessions, signed with a key derived from the server's secret.
    private let sessions: ConsoleSessions
    private let signIns: SignInLimiter
    /// The figures the console's overview draws (a service: it samples the server).
    private let history: ServiceHistory

    /// The admin role for `server`, whose tokens `authority` checks. The console's sessions are
    /// signed with a key derived from `secret` (`nil`: a key drawn at start, sessions of this
    /// process only); on a cluster, `sharedValues` is where the nodes share the sessions signed
    /// out (`nil`, a single node: this node's memory). Time is the server's clock
    /// (``ChatServer/ChatServer/clock``): sessions, sign-in limits and the overview's samples.
    public init(
        server: ChatServer, authority: TokenAuthority, secret: [UInt8]?, sharedValues: (any ClusterSharedValues)? = nil,
        metrics: GatewayMetrics, logger: Logger = Logger(label: "chat-server")
    ) async {
        self.server = server
        self.authority = authority
        self.metrics = metrics
        self.logger = logger
        sessions = await ConsoleSessions(secret: secret, clock: server.clock, sharedValues: sharedValues)
        signIns = SignInLimiter(clock: server.clock)
        history = ServiceHistory(server: server)
    }

    public func mount(on router: Router<GatewayRequestContext>) {
        // The server-side API for an app's backend and the console: admins only.
        AdminRoutes.mount(
            on: router, server: server, authority: authority, sessions: sessions, history: history, metrics: metrics,
            logger: logger)
        // The operator's console: static pages on the admin API, behind its own headers.
        let console = router.group("/console").add(middleware: ConsoleHeaders())
        ConsoleRoutes(authority: authority, sessions: sessions, server: server, limiter: signIns, logger: logger)
            .register(on: console)
    }

    /// The console's page connects by its session cookie: from the console's own origin
    /// (``SameOrigin``: a page of another site cannot open a WebSocket with the operator's
    /// cookie), for a session that has not ended, of a user who is still an admin (403 from
    /// another origin or for a user no longer an admin, 401 for a session that ended).
    public func identity(forConnectWithoutToken head: HTTPRequest) async throws(ConnectRefusal)
        -> TokenAuthority.Identity?
    {
        guard let session = ConsoleSessions.value(inCookieHeader: head.headerFields[.cookie]) else { return nil }
        guard SameOrigin.check(head) else {
            throw ConnectRefusal(
                error: .forbidden("a console session connects only from the console's own page"), status: .forbidden,
                metricReason: "forbidden")
        }
        guard let identity = await sessions.identity(of: session) else {
            throw ConnectRefusal(
                error: .unauthorized("the console session ended: sign in again"), status: .unauthorized,
                metricReason: "unauthorized")
        }
        do throws(ChatError) {
            try await AdminAuthentication<BasicRequestContext>.checkAdmin(identity.userId, on: server)
        } catch {
            throw ConnectRefusal(error: error, status: .forbidden, metricReason: "forbidden")
        }
        return identity
    }

    public var services: [any Service] { [history] }
}
