import ChatServer
import Foundation
import ServerTestSupport
import Testing

@testable import ChatAdmin
import ChatGateway

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The console's door, over HTTP on loopback: a session cookie (`HttpOnly`, `SameSite=Strict`)
/// only for an admin's token and only from the console's own origin; the cookie opens the admin
/// API, but a change made with it must come from the same origin; sessions are signed apart from
/// tokens; sign-in attempts are bounded per address; the pages are the files of `Pages/`.
@Suite struct ConsoleTests {
    struct Answer {
        var status: Int
        var headers: [AnyHashable: Any]
        var body: String
    }

    /// A session that keeps no cookies: each call sends only the headers it is given.
    static let session = URLSession.cookieless

    static func call(
        _ method: String, _ port: Int, _ path: String, body: String? = nil, headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        if let body { request.httpBody = Data(body.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return Answer(
            status: http.statusCode, headers: http.allHeaderFields, body: String(decoding: data, as: UTF8.self))
    }

    @Test func aSessionIsAnAdminsFromTheConsolesOwnOrigin() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "boss", isAdmin: true)
        try await server.registerUser(id: "eve")
        try await GatewayHarness.run(server: server) { harness in
            let port = harness.port
            let origin = ["Origin": "http://127.0.0.1:\(port)"]
            let token = #"{"token":"dev:boss"}"#
            // Only from the console's origin, only for an admin.
            #expect(try await Self.call("POST", port, "/console/session", body: token).status == 403)
            #expect(
                try await Self.call(
                    "POST", port, "/console/session", body: token, headers: ["Origin": "http://evil.example"]
                ).status == 403)
            let eve = try await Self.call(
                "POST", port, "/console/session", body: #"{"token":"dev:eve"}"#, headers: origin)
            #expect(eve.status == 403 && eve.body.contains("not an admin"))
            let signedIn = try await Self.call("POST", port, "/console/session", body: token, headers: origin)
            #expect(signedIn.status == 200)
            let setCookie = try #require(signedIn.headers["Set-Cookie"] as? String)
            #expect(
                setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict")
                    && setCookie.contains("Max-Age=28"))
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            // The cookie opens the admin API; a change needs the same origin too.
            #expect(try await Self.call("GET", port, "/admin/v1/users/eve", headers: ["Cookie": cookie]).status == 200)
            #expect(
                try await Self.call("POST", port, "/admin/v1/users/eve/ban", headers: ["Cookie": cookie]).status == 403)
            #expect(
                try await Self.call(
                    "POST", port, "/admin/v1/users/eve/ban",
                    headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:1"]
                ).status == 403)
            #expect(server.serviceBan(of: "eve") == nil)
            let ban = try await Self.call(
                "POST", port, "/admin/v1/users/eve/ban", headers: ["Cookie": cookie, "Sec-Fetch-Site": "same-origin"])
            #expect(ban.status == 200)
            #expect(server.serviceBan(of: "eve") != nil)
            // A session is no token of the protocol, and a forged session opens nothing.
            let value = String(cookie.dropFirst("chat_console=".count))
            #expect(
                try await Self.call("GET", port, "/admin/v1/users/eve", headers: ["Authorization": "Bearer \(value)"])
                    .status == 401)
            #expect(
                try await Self.call("GET", port, "/admin/v1/users/eve", headers: ["Cookie": "chat_console=x.y.z"])
                    .status == 401)
            #expect(
                try await Self.call("GET", port, "/console/session", headers: ["Cookie": cookie]).body.contains("boss"))
            // The console's page connects over the protocol with its session, from its own
            // origin only (the plain GET of /v1/connect answers as the upgrade would).
            #expect(
                try await Self.call("GET", port, "/v1/connect?device=console", headers: ["Cookie": cookie] + origin)
                    .status == 426)
            #expect(
                try await Self.call(
                    "GET", port, "/v1/connect", headers: ["Cookie": cookie, "Origin": "http://evil.example"]
                ).status == 403)
            #expect(
                try await Self.call("GET", port, "/v1/connect", headers: ["Cookie": "chat_console=x.y.z"] + origin)
                    .status == 401)
            // Signing out clears the cookie.
            let out = try await Self.call("DELETE", port, "/console/session", headers: ["Cookie": cookie] + origin)
            #expect(out.status == 204 && (out.headers["Set-Cookie"] as? String)?.contains("Max-Age=0") == true)
        }
    }

    @Test func everyPageHasThePolicyAndTheDeepLinksLoadThePage() async throws {
        try await GatewayHarness.run { harness in
            for path in ["/console", "/console/users/a%20b", "/console/channels/news", "/console/moderation"] {
                let page = try await Self.call("GET", harness.port, path)
                #expect(page.status == 200 && page.body.contains("/console/assets/app.js"), "\(path)")
                let policy = page.headers["Content-Security-Policy"] as? String
                #expect(policy?.contains("script-src 'self'") == true && policy?.contains("unsafe-inline") == false)
            }
            let script = try await Self.call("GET", harness.port, "/console/assets/app.js")
            #expect(
                script.status == 200
                    && (script.headers["Content-Type"] as? String)?.hasPrefix("text/javascript") == true)
            #expect(try await Self.call("GET", harness.port, "/console/assets/nothing.js").status == 404)
        }
    }

    @Test func theEmbeddedFilesAreThePagesFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/Service/ChatAdmin/Console/Pages")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ConsoleAssets.files.keys.sorted(), "the pages the build embeds (ConsoleAssetsPlugin)")
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(ConsoleAssets.files[name]?.text == text, "\(name) as ConsoleAssetsPlugin embeds it")
        }
        // No inline script: the policy would refuse it.
        #expect(!(ConsoleAssets.files["index.html"]!.text.contains("<script>")))
    }

    @Test func sessionsEndAndAreSignedApartFromEverythingElse() async throws {
        let clock = ManualClock()
        let sessions = await ConsoleSessions(secret: Array(repeating: 7, count: 32), clock: clock)
        let other = await ConsoleSessions(secret: Array(repeating: 8, count: 32), clock: clock)
        let session = try await sessions.open(for: "boss")
        #expect(await sessions.userId(of: session.value) == "boss")
        #expect(await other.userId(of: session.value) == nil)
        // Nodes that share the secret accept each other's sessions.
        let sameSecret = await ConsoleSessions(secret: Array(repeating: 7, count: 32), clock: clock)
        #expect(await sameSecret.userId(of: session.value) == "boss")
        // A token of the protocol, signed with the secret itself, is no session.
        let authority = try await TokenAuthority(
            secret: Array(repeating: 7, count: 32), allowsDevTokens: false, clock: clock)
        #expect(await sessions.userId(of: try await authority.makeToken(for: "boss", ttl: 3600)) == nil)
        clock.advance(by: ConsoleSessions.lifetime + 1)
        #expect(await sessions.userId(of: session.value) == nil)
    }

    @Test func signInsAreBoundedPerAddressForAMinute() {
        let clock = ManualClock()
        let limiter = SignInLimiter(clock: clock)
        for _ in 0..<SignInLimiter.attempts {
            #expect(limiter.wait(for: "10.0.0.1") == nil)
            limiter.refused("10.0.0.1")
        }
        #expect(limiter.wait(for: "10.0.0.1") == 60)
        #expect(limiter.wait(for: "10.0.0.2") == nil, "another address is not held back")
        clock.advance(by: 30)
        #expect(limiter.wait(for: "10.0.0.1") == 30)
        clock.advance(by: 31)
        #expect(limiter.wait(for: "10.0.0.1") == nil)
    }
}

extension Dictionary where Key == String, Value == String {
    fileprivate static func + (lhs: Self, rhs: Self) -> Self { lhs.merging(rhs) { $1 } }
}
