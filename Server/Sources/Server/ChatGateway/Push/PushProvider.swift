import AsyncHTTPClient
import ChatAPI
import ChatServer
import Foundation
import NIOCore
import NIOFoundationCompat

/// Delivers pushes to one provider (APNs, FCM, an operator's webhook).
public protocol PushProvider: Sendable {
    /// The name metrics and logs use (`webhook`, `apns`, `fcm`).
    var name: String { get }
    /// Whether it delivers pushes for `device` (APNs' tokens go to APNs, and so on).
    func handles(_ device: PushDevice) -> Bool
    /// Sends one push and says how it went. Never throws: a failure is an outcome.
    func send(_ notification: PushNotification) async -> PushOutcome
}

/// How a push went.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted by the provider.
    case sent
    /// The provider says the device is gone: the token is removed.
    case gone
    /// Worth trying again later (429, 5xx, a connection that failed).
    case retry
    /// Refused for good (another 4xx): dropped.
    case failed
}

extension HTTPClient {
    /// `POST`s `body` to `url` with `headers` and `content-type`, within 10 s; the answer's
    /// status and its body (at most 64 KB). Throws when no answer came (the caller retries).
    func post(
        _ url: String, headers: [(String, String)], contentType: String = "application/json", body: Data
    ) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await execute(request, timeout: .seconds(10))
        let answer = (try? await response.body.collect(upTo: 64 * 1024)).map { Data(buffer: $0) } ?? Data()
        return (Int(response.status.code), answer)
    }
}

extension Date {
    /// Now, to the whole second below: what a JWT's `iat` and `exp` carry (Apple and Google
    /// document whole seconds; JWTKit would write a fraction).
    static func wholeSecond() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}
