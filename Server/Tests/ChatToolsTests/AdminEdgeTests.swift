import Foundation
import ServerTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The admin API and the console's sign-in at their edges, against a `chat-server` process: ids
/// with every reserved character and non-ASCII opened through percent-encoded paths, answers no
/// cache keeps nor browser sniffs, a signed-out session refused by the server, and malformed HTTP
/// answered and closed instead of held open.
@Suite(.timeLimit(.minutes(10))) struct AdminEdgeTests {
    /// Ids an app may use (an e-mail address, a namespaced channel, spaces, reserved characters,
    /// non-ASCII): each is found by its percent-encoded path, and a flagged message in
    /// `team:design` is deleted and its flags dismissed.
    @Test func idsWithReservedCharactersAndNonASCIIAreOpenedThroughTheirEncodedPaths() async throws {
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        let users = ["lena.k@example.com", "a user", "zoë/β?#%&+=;,", "東京:山田"]
        for userId in users {
            #expect(
                try await AdminAPITests.call("POST", "/admin/v1/users", port: port, body: ["userId": userId]).status
                    == 201)
            let read = try await AdminAPITests.call("GET", "/admin/v1/users/\(Self.encoded(userId))", port: port)
            #expect(read.status == 200, "GET the user '\(userId)': \(read.status)")
            #expect(read.object["userId"] as? String == userId)
        }
        let made = try await AdminAPITests.call(
            "POST", "/admin/v1/channels", port: port,
            body: ["type": "community", "channelId": "team:design", "userIds": users])
        #expect(made.status == 201)
        let channel = Self.encoded("team:design")
        let sent = try await AdminAPITests.call(
            "POST", "/admin/v1/channels/\(channel)/messages", port: port,
            body: ["userId": "lena.k@example.com", "text": "flag me"])
        #expect(sent.status == 201)
        let messageId = try #require(sent.object["messageId"] as? String)
        let removed = try await AdminAPITests.call(
            "DELETE", "/admin/v1/channels/\(channel)/members/\(Self.encoded("a user"))", port: port)
        #expect(removed.status == 204)
        let deleted = try await AdminAPITests.call(
            "DELETE", "/admin/v1/channels/\(channel)/messages/\(Self.encoded(messageId))", port: port)
        #expect(deleted.status == 200)
        #expect(deleted.object["isDeleted"] as? Bool == true)
        // A segment that is not percent-encoded UTF-8 is refused, naming the field.
        let broken = try await AdminAPITests.call("GET", "/admin/v1/users/%C3%28", port: port)
        #expect(broken.status == 400)
        #expect(broken.errorKind == "invalidArgument")
    }

    /// Every admin answer, a refusal too, says `Cache-Control: no-store` and
    /// `X-Content-Type-Options: nosniff`.
    @Test func adminAnswersAreNeitherCachedNorSniffed() async throws {
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        for (path, token, status) in [
            ("/admin/v1/service", "dev:boss", 200), ("/admin/v1/users/nobody", "dev:boss", 404),
            ("/admin/v1/service", nil, 401),
        ] {
            let (answer, headers) = try await Self.fetch(
                "GET", path, port: port, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
            #expect(answer == status, "\(path)")
            #expect(headers["Cache-Control"] == "no-store", "\(path): \(headers)")
            #expect(headers["X-Content-Type-Options"] == "nosniff", "\(path): \(headers)")
        }
    }

    /// Signing out ends the session on the server: its cookie, replayed after, is refused.
    @Test func signingOutEndsTheSessionOnTheServer() async throws {
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        let origin = ["Origin": "http://127.0.0.1:\(port)", "Content-Type": "application/json"]
        let (signedIn, headers) = try await Self.fetch(
            "POST", "/console/session", port: port, headers: origin, body: Data(#"{"token":"dev:boss"}"#.utf8))
        #expect(signedIn == 200)
        let cookie = try #require(headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        #expect(try await Self.fetch("GET", "/admin/v1/service", port: port, headers: ["Cookie": cookie]).status == 200)
        let (signedOut, _) = try await Self.fetch(
            "DELETE", "/console/session", port: port, headers: origin.merging(["Cookie": cookie]) { $1 })
        #expect(signedOut == 204)
        #expect(try await Self.fetch("GET", "/admin/v1/service", port: port, headers: ["Cookie": cookie]).status == 401)
        #expect(try await Self.fetch("GET", "/console/session", port: port, headers: ["Cookie": cookie]).status == 401)
        // Another session of the same admin is untouched.
        let (again, newHeaders) = try await Self.fetch(
            "POST", "/console/session", port: port, headers: origin, body: Data(#"{"token":"dev:boss"}"#.utf8))
        #expect(again == 200)
        let second = try #require(newHeaders["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        #expect(try await Self.fetch("GET", "/admin/v1/service", port: port, headers: ["Cookie": second]).status == 200)
    }

    /// On a cluster, signing out on one node ends the session on every node (each node kept its
    /// own list of ended sessions: another node took the cookie for its remaining hours).
    @Test func signingOutOnOneNodeEndsTheSessionOnEveryNode() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "secret-\(UUID().uuidString)")
            try Data(String(repeating: "5ec2e7", count: 8).utf8).write(to: secretFile)
            defer { try? FileManager.default.removeItem(at: secretFile) }
            let nodes = try await ChatServerProcess.startNodes(2, postgres: url) { _ in
                ["--secret-file", secretFile.path]
            }
            defer { Subprocess.stop(nodes.map(\.process)) }
            let (first, second) = (nodes[0].port, nodes[1].port)
            let origin = ["Origin": "http://127.0.0.1:\(first)", "Content-Type": "application/json"]
            let (signedIn, headers) = try await Self.fetch(
                "POST", "/console/session", port: first, headers: origin, body: Data(#"{"token":"dev:boss"}"#.utf8))
            #expect(signedIn == 200)
            let cookie = try #require(headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            for port in [first, second] {
                #expect(
                    try await Self.fetch("GET", "/admin/v1/service", port: port, headers: ["Cookie": cookie]).status
                        == 200, "node on \(port) takes the session")
            }
            let (signedOut, _) = try await Self.fetch(
                "DELETE", "/console/session", port: first, headers: origin.merging(["Cookie": cookie]) { $1 })
            #expect(signedOut == 204)
            for port in [second, first] {
                #expect(
                    try await Self.fetch("GET", "/admin/v1/service", port: port, headers: ["Cookie": cookie]).status
                        == 401, "node on \(port) refuses the ended session")
            }
        }
    }

    /// Malformed HTTP over a raw socket is answered (400, 414, 431) and the connection closed at
    /// once, where it was held open with nothing said; a good request on a new connection is
    /// still served.
    @Test func malformedRequestsAreAnsweredAndClosed() async throws {
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        let long = String(repeating: "a", count: 100_000)
        let cases: [(String, [UInt8], String)] = [
            ("a raw space in the target", Array("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "400"),
            ("raw UTF-8 in the target", Array("GET /zoë HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "400"),
            ("no HTTP at all", Array("hello there\r\n\r\n".utf8), "400"),
            ("a 100 kB target", Array("GET /\(long) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "414"),
            ("a 100 kB header", Array("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(long)\r\n\r\n".utf8), "431"),
        ]
        for (name, request, status) in cases {
            let answer = try Self.exchange(request, port: port)
            #expect(answer.closed, "\(name): the connection was left open")
            #expect(answer.text.hasPrefix("HTTP/1.1 \(status) "), "\(name): \(answer.text.prefix(200))")
        }
        #expect(try await Self.fetch("GET", "/healthz", port: port).status == 200)
    }

    /// `text` with every character but the unreserved ones percent-encoded (as the console's
    /// `encodeURIComponent` does, and stricter).
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))!
    }

    /// An HTTP call: its status and its headers.
    static func fetch(
        _ method: String, _ path: String, port: Int, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> (status: Int, headers: [String: String]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (_, response) = try await URLSession.cookieless.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)"] = "\(value)" }
        return (http?.statusCode ?? 0, fields)
    }

    /// Sends `request` on a new connection to `port` and reads until the server closes it or 10
    /// seconds pass: what came back, and whether the server closed.
    static func exchange(_ request: [UInt8], port: Int) throws -> (text: String, closed: Bool) {
        #if canImport(Glibc)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "could not connect to 127.0.0.1:\(port)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The server may answer and close before the whole request is written: a short write
        // (or EPIPE, ignored as a signal) is fine.
        signal(SIGPIPE, SIG_IGN)
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 {
                return (String(decoding: received, as: UTF8.self), true)
            } else if errno == ECONNRESET {
                return (String(decoding: received, as: UTF8.self), true)
            } else {
                return (String(decoding: received, as: UTF8.self), false)
            }
        }
    }
}
