import ChatAPI
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WebSocketRequest {
    /// Why the server refuses this request's upgrade, for a connector whose WebSocket library
    /// does not show a refused upgrade's body: the same URL asked with a plain `GET` (and the same
    /// headers), whose 401, 403 or 429 carries `{"error":CHAT_ERROR}` (the wire protocol's
    /// refusals; `chat-server` answers a plain `GET` with the same checks). `nil` when the answer
    /// is not such a refusal, or the server cannot be reached.
    ///
    /// A 401, 403 or 429 without a readable body is still `unauthorized`, `forbidden` (a user
    /// banned from the service) or `limitExceeded`.
    public func refusal(session: URLSession = .shared) async -> ChatError? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme == "wss" ? "https" : "http"
        guard let plain = components.url else { return nil }
        var probe = URLRequest(url: plain, timeoutInterval: 10)
        for (name, value) in headers { probe.setValue(value, forHTTPHeaderField: name) }
        guard let (data, response) = try? await session.data(for: probe),
            let status = (response as? HTTPURLResponse)?.statusCode, [401, 403, 429].contains(status)
        else { return nil }
        struct Body: Decodable { var error: ChatError }
        if let body = try? JSONDecoder().decode(Body.self, from: data) { return body.error }
        switch status {
        case 401: return .unauthorized("the server refused the token (HTTP 401)")
        case 403: return .forbidden("the server refused this user (HTTP 403)")
        default: return .limitExceeded("the server refused the connection (HTTP 429)")
        }
    }
}
