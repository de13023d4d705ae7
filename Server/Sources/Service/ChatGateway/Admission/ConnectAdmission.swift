import ChatAPI
import ChatServer
import Foundation
import HTTPTypes
import Hummingbird

/// The one admission of `GET /v1/connect`, asked at both of its doors — the WebSocket upgrade and
/// the plain HTTP request of a client that wants to know why it was refused: a valid token
/// (`Authorization: Bearer TOKEN`, or `?token=`) — or, without one, what a gateway addition
/// admits (the console's page by its session cookie: ``GatewayAddition``) — and a device
/// (`?device=`, default `ChatServer.defaultDeviceId`) under the user's device cap.
package struct ConnectAdmission: Sendable {
    let authority: TokenAuthority
    let server: ChatServer
    /// Asked, in order, about a connect without a token.
    let additions: [any GatewayAddition]

    /// Who is admitted: the token's identity and the device connecting.
    struct Admitted: Sendable {
        var identity: TokenAuthority.Identity
        var deviceId: String
    }

    /// Why a connect is refused.
    typealias Refusal = ConnectRefusal

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
    ///   cannot read the cluster's log to count the user's devices; an addition's refusal.
    ///   - head: the request: without a token, the additions are asked who it acts for
    ///     (``GatewayAddition/identity(forConnectWithoutToken:)``).
    func admit(authorization: String?, queryToken: String?, device: String?, head: HTTPRequest? = nil)
        async throws(Refusal) -> Admitted
    {
        let token = Self.bearer(authorization) ?? queryToken
        if token == nil, let head {
            for addition in additions {
                if let identity = try await addition.identity(forConnectWithoutToken: head) {
                    return Admitted(identity: identity, deviceId: device ?? ChatServer.defaultDeviceId)
                }
            }
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

    /// The token of an `Authorization: Bearer TOKEN` header.
    package static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
