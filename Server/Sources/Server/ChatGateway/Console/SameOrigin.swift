import HTTPTypes
import Hummingbird

/// Whether a request came from a page of this server itself: its `Origin` names the host it
/// was sent to (the request's authority: `Host` in HTTP/1.1), or — a browser that sends no
/// `Origin` — `Sec-Fetch-Site` says `same-origin`. A cross-site form post or `fetch` fails it. A
/// request that carries neither header (a program, not a browser) fails it too: a session
/// cookie is a browser's, so a change made with one must prove where it came from.
enum SameOrigin {
    static func check(_ request: Request) -> Bool {
        if let origin = request.headers[.origin] {
            guard let host = request.head.authority else { return false }
            return origin == "http://\(host)" || origin == "https://\(host)"
        }
        return request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "same-origin"
    }
}
