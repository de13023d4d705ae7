import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import Hummingbird
import Logging

/// The server-side HTTP API under `/admin/v1/` (`Docs/Admin.md`), for an app's backend and the
/// console: thin routes over the engine's console calls (``ChatServer``), which apply the same
/// rules on one node and on a cluster (a change goes through the cluster's log; a read first
/// catches up with every change acknowledged anywhere). Admission is ``AdminAuthentication``'s;
/// bodies and answers are ``AdminJSON``'s.
struct AdminRoutes {
    let server: ChatServer
    /// The service's figures over the last 15 minutes (`GET /admin/v1/service/history`).
    let history: ServiceHistory

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

    /// Mounts the API at `/admin/v1` of `router`: every answer neither cached nor sniffed
    /// (``AdminHeaders``), admins only (``AdminAuthentication``: a bearer token, or the console's
    /// session), then the routes — what `ChatAdmin` mounts on the gateway, and what tests drive in process.
    static func mount<Context: RequestContext>(
        on router: Router<Context>, server: ChatServer, authority: TokenAuthority, sessions: ConsoleSessions,
        history: ServiceHistory, metrics: GatewayMetrics, logger: Logger
    ) {
        let group = router.group("/admin/v1")
            .add(middleware: AdminHeaders())
            .add(
                middleware: AdminAuthentication(
                    authority: authority, sessions: sessions, server: server, metrics: metrics, logger: logger))
        AdminRoutes(server: server, history: history).register(on: group)
    }

    /// Adds every route of the API to `group` (`/admin/v1`), by resource.
    func register<Context: RequestContext>(on group: RouterGroup<Context>) {
        registerService(on: group)
        registerUsers(on: group)
        registerChannels(on: group)
        registerModeration(on: group)
        registerMessages(on: group)
    }
}
