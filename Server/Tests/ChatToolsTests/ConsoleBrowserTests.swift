import Foundation
import ServerTestSupport
import Testing

/// The operator's console at `/console`, used in a real browser — Debian's headless Chromium,
/// driven by Selenium (`Clients/console_browser.py`) — against a `chat-server` process: sign in
/// (a non-admin refused, saying why), the overview's numbers against `/metrics`, a user found
/// and banned (their WebSocket closed, their next connect refused), a flagged message deleted
/// from the queue (the channel's clients see it deleted), a message sent by a client appearing
/// on the open channel page over the page's own WebSocket (a device of the admin), texts full of
/// markup shown as text with no script run, a cross-site POST and WebSocket refused, sign-out,
/// and sign-in attempts bounded.
///
/// The pages' pictures go to `CONSOLE_SCREENSHOTS` when it names a folder (`Docs/Console` holds
/// the ones Operating.md shows), else to a temporary folder.
@Suite(.timeLimit(.minutes(10))) struct ConsoleBrowserTests {
    @Test func anOperatorUsesTheConsoleInChromium() async throws {
        let shots = try ConsoleBrowser.screenshots()
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.stop() }
        try await ConsoleBrowser.drive(["\(port)", shots])
        for page in ["sign-in", "overview", "user", "moderation", "channel"] {
            #expect(FileManager.default.fileExists(atPath: "\(shots)/\(page).png"), "no picture of \(page)")
        }
    }

    /// Three `chat-server` nodes on one PostgreSQL: the console of any of them lists the three.
    @Test func theOverviewOfAClusterListsItsThreeNodes() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let nodes = try await ChatServerProcess.startNodes(3, postgres: url)
            defer { Subprocess.stop(nodes.map(\.process)) }
            let ports = nodes.map(\.port)
            let lines = try await ConsoleBrowser.drive(["\(ports[2])", ConsoleBrowser.screenshots(), "cluster", "3"])
            #expect(lines.contains("the overview lists ['n0', 'n1', 'n2']"), "\(lines)")
        }
    }
}
