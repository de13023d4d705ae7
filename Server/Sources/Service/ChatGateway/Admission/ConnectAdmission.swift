import ChatAPI
import ChatServer
import Foundation
import HTTPTypes
import Hummingbird

/// The one admission of `GET /v1/connect`, asked at both of its doors — the WebSocket upgrade and
/// the plain HTTP request of a client that wants to know why it was refused: a valid token
/// (`Authorization: Bearer TOKEN`, or `?token=`) — or, for the console's page, its session
/// cookie from the console's own origin (an admin's device, for what the console shows live) —
/// and a device (`?device=`, default `ChatServer.defaultDeviceId`) under the user's device cap.
struct ConnectAdmission: Sendable {
    let authority: TokenAuthority
    let server: ChatServer

    /// Who is admitted: the token's identity and the device connecting.
    struct Admitted: Sendable {
        var identity: TokenAuthority.Identity
        var deviceId: String
    }

    /// Why a connect is refused, as the protocol answers it: an HTTP status and the JSON body
    /// `{"error":CHAT_ERROR}`.
    struct Refusal: Error, Sendable {
        var error: ChatError
        var status: HTTPResponse.Status
        /// The `reason` label under which `chat_rejections_total` counts a refused upgrade (the
        /// plain HTTP request's refusals are answered, not counted).
        var metricReason: String

        /// `{"error":CHAT_ERROR}`, written as the wire protocol writes errors.
        var body: [UInt8] { WireCodec.refusalBody(error) }
    }

    /// Admits a connect.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header's value, if any; its bearer token is used
    ///     first.
    ///   - queryToken: the `token` query parameter's value (`?token=`), if any: the token when
    ///     there is no bearer token.
    ///   - device: the `device` query parameter's value (`?device=`), if any; default
    ///     `ChatServer.defaultDeviceId`.
    ///
    /// - Throws: a ``Refusal``: 401 (`unauthorized`) for a missing, malformed, badly signed or
    ///   expired token; 429 (`limitExceeded`) past the device cap (the connect checks it again:
    ///   another device may connect meanwhile); 503 (`unavailable`) on a node of a cluster that
    ///   cannot read the cluster's log to count the user's devices.
    ///   - head: the request: without a token, its console session cookie (``ConsoleSessions``) is
    ///     used, when it comes from the console's own origin (``SameOrigin``: a page of another
    ///     site cannot open a WebSocket with the operator's cookie) and names an admin.
    func admit(authorization: String?, queryToken: String?, device: String?, head: HTTPRequest? = nil)
        async throws(Refusal) -> Admitted
    {
        let token = Self.bearer(authorization) ?? queryToken
        if token == nil, let head, let session = ConsoleSessions.value(inCookieHeader: head.headerFields[.cookie]) {
            return try await admitConsole(session: session, head: head, device: device)
        }
        let identity: TokenAuthority.Identity
        do {
            identity = try await authority.identity(for: token)
        } catch {
            throw Refusal(error: error, status: .unauthorized, metricReason: "unauthorized")
        }
        let deviceId = device ?? ChatServer.defaultDeviceId
        do throws(ChatError) {
            try await server.checkCanConnect(userId: identity.userId, deviceId: deviceId)
        } catch {
            if case .unavailable = error {
                // A node of a cluster that cannot read the log cannot count the user's devices.
                throw Refusal(error: error, status: .serviceUnavailable, metricReason: "unavailable")
            }
            if case .forbidden = error {
                // Banned from the service (ChatServer.banUser).
                throw Refusal(error: error, status: .forbidden, metricReason: "forbidden")
            }
            throw Refusal(error: error, status: .tooManyRequests, metricReason: "limitExceeded")
        }
        return Admitted(identity: identity, deviceId: deviceId)
    }

    /// Admits the console's page by its session: 403 from another origin or for a user who is
    /// no longer an admin, 401 for a session that ended.
    private func admitConsole(session: String, head: HTTPRequest, device: String?) async throws(Refusal) -> Admitted {
        guard SameOrigin.check(head) else {
            throw Refusal(
                error: .forbidden("a console session connects only from the console's own page"), status: .forbidden,
                metricReason: "forbidden")
        }
        guard let identity = await authority.consoleSessions.identity(of: session) else {
            throw Refusal(
                error: .unauthorized("the console session ended: sign in again"), status: .unauthorized,
                metricReason: "unauthorized")
        }
        do throws(ChatError) {
            try await AdminAuthentication<BasicRequestContext>.checkAdmin(identity.userId, on: server)
        } catch {
            throw Refusal(error: error, status: .forbidden, metricReason: "forbidden")
        }
        return Admitted(identity: identity, deviceId: device ?? ChatServer.defaultDeviceId)
    }

    /// The token of an `Authorization: Bearer TOKEN` header.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
