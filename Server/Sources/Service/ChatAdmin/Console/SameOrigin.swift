import ChatGateway
import HTTPTypes

/// Whether a request came from a page of this server itself: its `Origin` names the host it
/// was sent to (the request's authority: `Host` in HTTP/1.1), or — a browser that sends no
/// `Origin` — `Sec-Fetch-Site` says `same-origin`. A cross-site form post, `fetch` or WebSocket
/// fails it. A request that carries neither header (a program, not a browser) fails it too: a
/// session cookie is a browser's, so what is done with one must prove where it came from.
enum SameOrigin {
    static func check(_ head: HTTPRequest) -> Bool {
        if let origin = head.headerFields[.origin] {
            guard let host = head.authority else { return false }
            return origin == "http://\(host)" || origin == "https://\(host)"
        }
        return head.headerFields[HTTPField.Name("Sec-Fetch-Site")!] == "same-origin"
    }
}
