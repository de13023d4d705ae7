import Foundation
import ServerTestSupport
import Testing

/// The operator's console at `/console`, used in a real browser — Debian's headless Chromium,
/// driven by Selenium (`Clients/console_browser.py`) — against a `chat-server` process: sign in
/// (a non-admin refused, saying why), the overview's numbers against `/metrics`, a user found
/// and banned (their WebSocket closed, their next connect refused), a flagged message deleted
/// from the queue (the channel's clients see it deleted), a message sent by a client appearing
/// on the open channel page, texts full of markup shown as text with no script run, a cross-site
/// POST refused, sign-out, and sign-in attempts bounded.
///
/// The pages' pictures go to `CONSOLE_SCREENSHOTS` when it names a folder (`Docs/Console` holds
/// the ones Operating.md shows), else to a temporary folder.
@Suite(.timeLimit(.minutes(3))) struct ConsoleBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/console_browser.py")

    @Test func anOperatorUsesTheConsoleInChromium() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(
                FileManager.default.isExecutableFile(atPath: tool),
                "\(tool) is missing: scripts/system-packages installs Debian's chromium and chromium-driver")
        }
        let shots =
            ProcessInfo.processInfo.environment["CONSOLE_SCREENSHOTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"])
        defer { server.process.terminate() }
        let python = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script.path, "\(port)", shots],
            environment: try PythonEnvironment.environment())
        var lines: [String] = []
        for await line in python.lines { lines.append(line) }
        let status = await python.exitStatus()
        #expect(
            status == 0 && lines.last == "OK",
            "exit \(status):\n\(lines.joined(separator: "\n"))\n\(python.standardError)")
        for page in ["sign-in", "overview", "user", "moderation", "channel"] {
            #expect(FileManager.default.fileExists(atPath: "\(shots)/\(page).png"), "no picture of \(page)")
        }
    }
}
