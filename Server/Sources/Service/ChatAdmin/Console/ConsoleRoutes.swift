import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The operator's console at `/console` (`Docs/Operating.md`, "The console"): one page of
/// static files compiled into the binary (``ConsoleAssets``) that calls the admin API, and its
/// sign-in:
///
/// - `GET /console`, `GET /console/…` (deep links such as `/console/users/<id>`): the page;
/// - `GET /console/assets/<file>`: its scripts and style;
/// - `POST /console/session` `{"token": …}`: signs an admin in — 200 `{"userId": …}` and the
///   session cookie; 401 for a refused token, 403 for a user who is not an admin (the page shows
///   why), 429 after ``SignInLimiter/attempts`` refused attempts from one address in a minute,
///   403 from another origin;
/// - `GET /console/session`: who is signed in (401 when nobody);
/// - `DELETE /console/session`: signs out: the session ends on the server (every node of a
///   cluster refuses it from then on; 503 when that could not be recorded) and the cookie is
///   cleared.
struct ConsoleRoutes {
    let authority: TokenAuthority
    let sessions: ConsoleSessions
    let server: ChatServer
    let limiter: SignInLimiter
    let logger: Logger

    struct SignIn: Decodable {
        var token: String
    }

    struct SignedIn: Encodable {
        var userId: String
        var expiresAt: Date
    }

    func register<Context: RequestContext & RemoteAddressRequestContext>(on group: RouterGroup<Context>) {
        let page: @Sendable (Request, Context) async throws -> Response = { _, _ in
            Self.asset(ConsoleAssets.files["index.html"]!)
        }
        group.get(use: page)
        group.get("users", use: page)
        group.get("users/**", use: page)
        group.get("channels", use: page)
        group.get("channels/**", use: page)
        group.get("moderation", use: page)
        group.get("assets/{name}") { _, context in
            guard let name = context.parameters.get("name"), let asset = ConsoleAssets.files[name] else {
                return Response(status: .notFound)
            }
            return Self.asset(asset)
        }
        group.post("session") { request, context in
            await signIn(request, from: context.remoteAddress.map { $0.ipAddress ?? "\($0)" } ?? "unknown")
        }
        group.get("session") { request, _ in
            await AdminJSON.answer {
                guard let value = ConsoleSessions.value(inCookieHeader: request.headers[.cookie]),
                    let userId = await sessions.userId(of: value)
                else { throw ChatError.unauthorized("nobody is signed in") }
                try await AdminAuthentication<Context>.checkAdmin(userId, on: server)
                return try AdminJSON.response(["userId": userId])
            }
        }
        group.delete("session") { request, _ in
            guard SameOrigin.check(request.head) else {
                return AdminJSON.refusal(.forbidden("signing out must come from the console's own page"))
            }
            var response = Response(status: .noContent)
            if let value = ConsoleSessions.value(inCookieHeader: request.headers[.cookie]) {
                do {
                    try await sessions.end(value)
                } catch {
                    // Ended on this node, not yet on the others: the browser drops the cookie
                    // either way, and the operator is told to sign out again.
                    response = AdminJSON.refusal(
                        .unavailable("the sign-out could not be recorded for every node of the cluster; sign out again")
                    )
                }
            }
            response.headers[.setCookie] = ConsoleSessions.setCookie(nil, expiresAt: nil)
            return response
        }
    }

    private func signIn(_ request: Request, from address: String) async -> Response {
        if let wait = limiter.wait(for: address) {
            var response = AdminJSON.refusal(.rateLimited(retryAfter: Double(wait)))
            response.headers[HTTPField.Name("Retry-After")!] = "\(wait)"
            return response
        }
        guard SameOrigin.check(request.head) else {
            return AdminJSON.refusal(.forbidden("signing in must come from the console's own page"))
        }
        do {
            let body = try await AdminJSON.body(SignIn.self, of: request)
            let userId: String
            do throws(ChatError) {
                userId = try await authority.identity(for: body.token.trimmingCharacters(in: .whitespaces)).userId
                try await AdminAuthentication<BasicRequestContext>.checkAdmin(userId, on: server)
            } catch {
                limiter.refused(address)
                logger.notice("console sign-in refused", metadata: ["address": "\(address)", "error": "\(error)"])
                return AdminJSON.refusal(error)
            }
            let session = try await sessions.open(for: userId)
            var response = try AdminJSON.response(SignedIn(userId: userId, expiresAt: session.expiresAt))
            response.headers[.setCookie] = ConsoleSessions.setCookie(session.value, expiresAt: session.expiresAt)
            logger.info("console sign-in", metadata: ["admin": "\(userId)", "address": "\(address)"])
            return response
        } catch let error as ChatError {
            return AdminJSON.refusal(error)
        } catch {
            return AdminJSON.refusal(.unavailable("\(error)"))
        }
    }

    static func asset(_ asset: ConsoleAssets.Asset) -> Response {
        Response(
            status: .ok, headers: [.contentType: asset.contentType],
            body: .init(byteBuffer: ByteBuffer(string: asset.text)))
    }
}
