import Foundation
import ServerTestSupport
import Testing

/// `chat-terminal` through what a person meets over days: a server that starts over under it,
/// and quitting (`quit`, Ctrl-C) with messages still sending. Each terminal is a process typed
/// into line by line (``TerminalSession``), against `chat-server` processes.
@Suite(.timeLimit(.minutes(3))) struct TerminalProcessTests {
    private let chatServer = Subprocess.product("chat-server")

    /// A server that starts over (restarted in memory: a new history) does not strand its
    /// terminal: once reconnected, #general is opened again and the terminal says why, and what
    /// is typed next is sent (it was "not found", the pane struck out, before).
    @Test func aTerminalWhoseServerStartsOverOpensGeneralAgain() async throws {
        let (first, port) = try await ChatServerProcess.startOnFixedPort([])
        let terminal = try TerminalSession([
            "--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "alice", "--no-cache",
        ])
        let online = try await terminal.type("show") { $0.contains("alice (online)") && $0.contains("#general") }
        #expect(online != nil, "\(terminal.text)")
        try terminal.type("send general before")
        #expect(try await terminal.wait { $0.contains("alice → #general: before") }, "\(terminal.text)")
        first.process.terminate()
        _ = await first.exitStatus()
        let second = try Subprocess(
            chatServer, ["--dev", "--port", "\(port)"], environment: ["CHAT_SERVER_SECRET": ""])
        defer { second.stop() }
        var lines = second.lines.makeAsyncIterator()
        #expect(await lines.next()?.hasPrefix("listening on") == true)
        // The terminal reconnects by itself (it may before anything is typed): its notice is
        // waited for in all it printed.
        #expect(
            try await terminal.wait {
                $0.contains("the server started over") && $0.contains("alice opened #general again")
            },
            "\(terminal.text)")
        try terminal.type("send general after")
        #expect(try await terminal.wait { $0.contains("alice → #general: after") }, "\(terminal.text)")
        let (status, text) = terminal.end()
        #expect(status == 0, "\(text)")
        #expect(!text.contains("not found") && !text.contains("(not sent)"), "\(text)")
    }

    /// Messages still sending when `chat-terminal` quits — by `quit` or by Ctrl-C — are kept in
    /// its cache file, said so, and sent at its next start (they were lost with the process).
    @Test func messagesStillSendingWhenTheTerminalQuitsAreSentAtItsNextStart() async throws {
        let (probe, port) = try await ChatServerProcess.startOnFixedPort([])
        probe.process.terminate()
        _ = await probe.exitStatus()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("alice.sqlite").path
        let arguments = ["--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "alice", "--cache", cache]

        // No server: typed, then `quit`.
        let quitting = try TerminalSession(arguments)
        try quitting.type("send general typed then quit")
        let quit = quitting.end()
        #expect(quit.status == 0, "\(quit.text)")
        #expect(quit.text.contains("alice: 1 message still sending, kept in \(cache)"), "\(quit.text)")
        // Typed, then Ctrl-C.
        let interrupted = try TerminalSession(arguments)
        try interrupted.type("send general typed then ctrl-c")
        #expect(try await interrupted.wait { $0.contains("typed then ctrl-c (sending") }, "\(interrupted.text)")
        interrupted.interrupt()
        let stopped = interrupted.end(quitting: false)
        #expect(stopped.status == 0, "\(stopped.text)")
        #expect(stopped.text.contains("alice: 2 messages still sending, kept in \(cache)"), "\(stopped.text)")

        // Where no cache folder can be made, the chat goes on and says what that means.
        let blocked = folder.appendingPathComponent("a-file")
        try Data().write(to: blocked)
        let uncached = try TerminalSession(
            ["--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "bob"],
            environment: ["XDG_CACHE_HOME": blocked.path])
        try uncached.type("send general lost")
        let lost = uncached.end()
        #expect(lost.status == 0, "\(lost.text)")
        #expect(lost.text.contains("chat-terminal: no cache (cannot make the folder"), "\(lost.text)")
        #expect(lost.text.contains("bob: 1 message still sending, not sent"), "\(lost.text)")

        // The server is up: the next start sends both, once #general is open.
        let server = try Subprocess(
            chatServer, ["--dev", "--port", "\(port)"], environment: ["CHAT_SERVER_SECRET": ""])
        defer { server.stop() }
        var lines = server.lines.makeAsyncIterator()
        #expect(await lines.next()?.hasPrefix("listening on") == true)
        // Someone else opens #general first: alice's kept messages, refused until she joins it,
        // are sent once she has.
        let carol = try TerminalSession([
            "--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "carol", "--no-cache",
        ])
        #expect(try await carol.wait { $0.contains("carol moderates #general") }, "\(carol.text)")
        _ = carol.end()
        let next = try TerminalSession(arguments)
        let history = try await next.type("history general") {
            $0.contains("alice: typed then quit\n") && $0.contains("alice: typed then ctrl-c\n")
        }
        #expect(history != nil, "\(next.text)")
        let ended = next.end()
        #expect(ended.status == 0 && !ended.text.contains("still sending"), "\(ended.text)")
    }

    /// On a terminal (a pseudo-terminal: the screen is redrawn, as for a person), a message typed
    /// while the server is away says "sending…" until it goes — the client reconnecting by
    /// itself when the server is back — then says it was sent: the "sending…" line stayed on the
    /// screen after the message went. Cursor keys typed into the line never reach the command.
    @Test func onATerminalTheSendingLineSaysWhenTheMessageWent() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("chat.sqlite").path
        let (first, port) = try await ChatServerProcess.startOnFixedPort(["--data", data])
        let terminal = try TerminalSession(
            ["--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "alice", "--no-cache"], onATerminal: true)
        #expect(try await terminal.wait { $0.contains("LiveChannels chat — alice on ws://127.0.0.1:\(port)") })
        #expect(try await terminal.wait { $0.contains("alice moderates #general") }, "\(terminal.text.suffix(2_000))")
        first.process.terminate()
        _ = await first.exitStatus()
        #expect(try await terminal.wait { $0.contains("reconnecting") }, "\(terminal.text.suffix(2_000))")
        try terminal.type("send general typed\u{1B}[D\u{1B}[D while away")
        #expect(
            try await terminal.wait {
                $0.contains("alice → #general: typed while away (sending… it goes once alice is online)")
            }, "\(terminal.text.suffix(2_000))")
        // The same server again, on its file: the client reconnects by itself and sends.
        let second = try Subprocess(
            chatServer, ["--dev", "--port", "\(port)", "--data", data], environment: ["CHAT_SERVER_SECRET": ""])
        defer { second.stop() }
        var lines = second.lines.makeAsyncIterator()
        #expect(await lines.next()?.hasPrefix("listening on") == true)
        #expect(
            try await terminal.wait { $0.contains("alice → #general: typed while away (sent)") },
            "\(terminal.text.suffix(2_000))")
        let (status, text) = terminal.end()
        #expect(status == 0, "\(text.suffix(2_000))")
    }
}
