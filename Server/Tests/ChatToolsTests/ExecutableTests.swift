import ChatAPI
import ChatGateway
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

/// `chat-server` as an operator runs it, and a client written in Python from
/// `Docs/Protocol.md` alone.
@Suite(.timeLimit(.minutes(1))) struct ExecutableTests {
    private let chatServer = Subprocess.product("chat-server")
    private let secret = "0123456789abcdef0123456789abcdef-test"

    @Test func itRefusesToStartWithoutASecretUnlessDev() async throws {
        let short = try Subprocess(chatServer, ["--port", "0"], environment: ["CHAT_SERVER_SECRET": "too short\n"])
        #expect(await short.exitStatus() == 2)
        #expect(short.standardError.contains("at least 32"))
        var environment = ProcessInfo.processInfo.environment
        environment["CHAT_SERVER_SECRET"] = nil
        let process = Process()
        process.executableURL = chatServer
        process.arguments = ["--port", "0"]
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        Subprocess.waitForExit(of: process)
        #expect(process.terminationStatus == 2)
        #expect(
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains(
                "CHAT_SERVER_SECRET"))
    }

    /// The operators' document lists every flag `chat-server --help` shows, and no other.
    @Test func theOperatorsDocumentListsEveryFlag() async throws {
        let help = try Subprocess(chatServer, ["--help"])
        #expect(await help.exitStatus() == 0)
        var shown: Set<String> = []
        for await line in help.lines {
            for match in line.matches(of: /^  (--[a-z-]+)/) { shown.insert(String(match.1)) }
        }
        shown.remove("--help")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("Docs/Operating.md"), encoding: .utf8)
        let documented = Set(document.matches(of: /\n\| `(--[a-z-]+)/).map { String($0.1) })
        #expect(shown.count > 15, "\(shown)")
        #expect(
            documented == shown,
            "only documented: \(documented.subtracting(shown)); undocumented: \(shown.subtracting(documented))")
    }

    /// Every option out of range is refused (exit 2) by a message naming that one option; a
    /// negative number is out of range, not "missing"; a value that could not be used (an
    /// infinite ping interval) never crashes; a port in use is named; storage errors say what
    /// is wrong without an app's advice; `--durable-on-power-loss` needs `--data`.
    @Test func theCommandLineSaysWhatIsWrongWithWhichOption() async throws {
        for (arguments, flag) in [
            (["--ping-interval", "-5"], "--ping-interval"), (["--ping-interval", "inf"], "--ping-interval"),
            (["--ping-interval", "1e300"], "--ping-interval"), (["--port", "70000"], "--port"),
            (["--port", "-1"], "--port"),
            (["--max-devices", "0"], "--max-devices"), (["--replay-log", "-3"], "--replay-log"),
            (["--requests-per-second", "nan"], "--requests-per-second"),
            (["--max-frame-bytes", "0"], "--max-frame-bytes"),
            (["--durable-on-power-loss"], "--durable-on-power-loss"),
            (["--data", FileManager.default.temporaryDirectory.path], "--data"), (["--host", "999.1.1.1"], "--host"),
        ] {
            let process = try Subprocess(chatServer, ["--dev"] + arguments, environment: [:])
            #expect(await process.exitStatus() == 2, "\(arguments)")
            let message = process.standardError
            #expect(message.contains(flag) && !message.contains("Missing value"), "\(arguments): \(message)")
            let otherFlags = [
                "--ping-interval", "--port", "--max-devices", "--replay-log", "--requests-per-second",
                "--max-frame-bytes",
            ]
            #expect(otherFlags.filter { $0 != flag && message.contains($0) }.isEmpty, "one flag named: \(message)")
        }

        let first = try Subprocess(chatServer, ["--dev", "--port", "0"], environment: [:])
        var lines = first.lines.makeAsyncIterator()
        let listening = try #require(await lines.next())
        let port = try #require(
            listening.wholeMatch(of: /listening on ws:\/\/127\.0\.0\.1:(\d+)\/v1\/connect/).flatMap { Int($0.1) })
        let second = try Subprocess(chatServer, ["--dev", "--port", "\(port)"], environment: [:])
        #expect(await second.exitStatus() == 1)
        let inUse = second.standardError  // a pipe: read once
        #expect(inUse.contains("\(port)") && inUse.contains("in use"), "\(inUse)")
        first.process.terminate()
        #expect(await first.exitStatus() == 0)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chat-server-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let unwritable = directory.appendingPathComponent("no/such/folder/chat.sqlite").path
        let storage = try Subprocess(chatServer, ["--dev", "--port", "0", "--data", unwritable], environment: [:])
        #expect(await storage.exitStatus() == 2)
        let storageError = storage.standardError
        #expect(storageError.contains(unwritable) && !storageError.contains("retry when"), "\(storageError)")
        let folder = directory.appendingPathComponent("no/such/folder").path
        #expect(
            storageError.contains("the folder \(folder) does not exist") && !storageError.contains("SQLite error"),
            "\(storageError)")

        let badUser = try Subprocess(chatServer, ["token", " alice"], environment: ["CHAT_SERVER_SECRET": secret])
        #expect(await badUser.exitStatus() == 2)
        let badUserError = badUser.standardError
        #expect(badUserError.contains("user id"), "\(badUserError)")
    }

    /// `token --secret-file FILE` signs with the file (the server command's own option of that
    /// name used to take it, and the token command then found no secret); a file that cannot be
    /// read is an error even when the variable is set; a validity past ten years is refused.
    @Test func theTokenCommandReadsItsSecretFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data((secret + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let signed = try Subprocess(
            chatServer, ["token", "alice", "--secret-file", file.path], environment: ["CHAT_SERVER_SECRET": ""])
        var lines = signed.lines.makeAsyncIterator()
        let token = await lines.next()
        #expect(await signed.exitStatus() == 0, "\(signed.standardError)")
        #expect(token?.split(separator: ".").count == 3)
        let authority = try await TokenAuthority(secret: Array(secret.utf8), allowsDevTokens: false)
        #expect(try await authority.identity(for: token).userId == "alice")

        let missing = try Subprocess(
            chatServer, ["token", "alice", "--secret-file", "/nonexistent/secret"],
            environment: ["CHAT_SERVER_SECRET": secret])
        #expect(await missing.exitStatus() == 2)
        let missingError = missing.standardError
        #expect(missingError.contains("/nonexistent/secret"), "\(missingError)")

        // No secret at all: one line saying so, not the server command's usage.
        let noSecret = try Subprocess(chatServer, ["token", "alice"], environment: ["CHAT_SERVER_SECRET": ""])
        #expect(await noSecret.exitStatus() == 2)
        let noSecretError = noSecret.standardError
        #expect(noSecretError.hasPrefix("chat-server token: a token is signed"), "\(noSecretError)")
        #expect(!noSecretError.contains("Usage:") && !noSecretError.contains("<subcommand>"), "\(noSecretError)")
        #expect(!missingError.contains("Usage:"), "\(missingError)")

        let forever = try Subprocess(
            chatServer, ["token", "alice", "--ttl", "1e300"], environment: ["CHAT_SERVER_SECRET": secret])
        #expect(await forever.exitStatus() == 2)
        #expect(forever.standardError.contains("--ttl"))
    }

    @Test func itListensSignsTokensAndStopsOnSIGTERM() async throws {
        let token = try Subprocess(
            chatServer, ["token", "alice", "--ttl", "600"], environment: ["CHAT_SERVER_SECRET": secret])
        var tokenLines = token.lines.makeAsyncIterator()
        let signed = try #require(await tokenLines.next())
        #expect(await token.exitStatus() == 0)
        #expect(signed.split(separator: ".").count == 3)

        let server = try Subprocess(
            chatServer, ["--port", "0", "--admin", "boss"], environment: ["CHAT_SERVER_SECRET": secret])
        var lines = server.lines.makeAsyncIterator()
        let first = try #require(await lines.next())
        let port = try #require(
            first.wholeMatch(of: /listening on ws:\/\/127\.0\.0\.1:(\d+)\/v1\/connect/).flatMap { Int($0.1) })
        let transport = WebSocketTransport(
            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: "alice", token: { signed },
            connector: NIOWebSocketConnector())
        let result = try await transport.connect(resumingAfter: nil)
        #expect(result.currentUser.userId == "alice")
        #expect(try await transport.send(.getUser(userId: "boss")).userValue?.isAdmin == true)

        server.process.terminate()  // SIGTERM
        for await item in transport.events {
            guard case .disconnected(let reason) = item else { continue }
            #expect("\(reason)".contains("1001"))
            break
        }
        #expect(await server.exitStatus() == 0)
    }

    /// `chat-server --dev` and two `chat-terminal`s, as README's "Run a server" shows.
    @Test func twoPeopleChatThroughChatServerInTheirTerminals() async throws {
        let server = try Subprocess(chatServer, ["--dev", "--port", "0"], environment: ["CHAT_SERVER_SECRET": ""])
        var lines = server.lines.makeAsyncIterator()
        let url = try #require(await lines.next()?.wholeMatch(of: /listening on (ws:\/\/.+)/).map { String($0.1) })
        func terminal(as user: String, _ script: String) async throws -> String {
            let process = Process()
            process.executableURL = Subprocess.product("chat-terminal")
            process.arguments = ["--server", url, "--as", user, "--no-cache"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data(script.utf8))
            try input.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Subprocess.waitForExit(of: process)
            #expect(process.terminationStatus == 0, "\(user): \(text)")
            return text
        }
        _ = try await terminal(as: "bob", "quit\n")
        let alice = try await terminal(as: "alice", "send general hi bob\nquit\n")
        #expect(alice.contains("alice → #general: hi bob"))
        let bob = try await terminal(as: "bob", "show\nquit\n")
        #expect(bob.contains("#general General (1)"), "\(bob)")
        server.process.terminate()
        #expect(await server.exitStatus() == 0)
    }

    /// The issue's request over the wire: a moderator mutes their channel for 1e11 s. It is
    /// refused (`invalidArgument`, field `period`) and the process goes on; the longest accepted
    /// mutes are kept in the data file, and the server restarts on it (it used to die at the
    /// request, and again at every start from the file).
    @Test func aHugeMutePeriodIsRefusedAndTheServerRestartsOnItsFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chat-server-mute-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chat.sqlite").path
        for run in 0..<2 {
            let (server, port) = try await ChatServerProcess.start(["--data", file, "--no-limits"])
            let transport = ChatServerProcess.transport("alice", port: port)
            _ = try await transport.connect(resumingAfter: nil)
            if run == 0 {
                _ = try await transport.send(
                    .createChannel(ChannelDraft(type: .community, channelId: "c", userIds: [])))
                for request in [
                    ChatRequest.muteChannel(channelId: "c", period: 1e11),
                    .muteMembers(channelId: "c", userIds: ["alice"], period: 1e11),
                ] {
                    do {
                        _ = try await transport.send(request)
                        Issue.record("\(request) was answered")
                    } catch ChatError.invalidArgument(let field, _) {
                        #expect(field == "period")
                    }
                }
                _ = try await transport.send(.muteChannel(channelId: "c", period: 315_360_000))
            }
            // Still (or again) serving, with the ten-year mute in force.
            let channel = try await transport.send(.getChannel(channelId: "c")).channelValue
            #expect(channel?.isMuted == true, "run \(run)")
            await transport.disconnect()
            server.process.terminate()  // SIGTERM
            #expect(await server.exitStatus() == 0, "run \(run): \(server.standardError)")
        }
    }

    /// `chat-terminal` started while its server is down does not quit: its pane says "offline:
    /// the server cannot be reached" (no NIO internals, no advice to a program), and it connects
    /// by itself, opening #general, once a server starts on that port.
    @Test func theTerminalStartedBeforeItsServerConnectsOnceTheServerIsUp() async throws {
        // A port nobody listens on: a server's, stopped. Not one of port 0's: another test's
        // server could be given it, and this terminal would reach that server.
        let (probe, port) = try await ChatServerProcess.startOnFixedPort([])
        probe.process.terminate()
        _ = await probe.exitStatus()

        let terminal = Process()
        terminal.executableURL = Subprocess.product("chat-terminal")
        terminal.arguments = ["--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", "alice", "--no-cache"]
        let input = Pipe()
        let output = Pipe()
        terminal.standardInput = input
        terminal.standardOutput = output
        terminal.standardError = output
        try terminal.run()
        try await Task.sleep(for: .seconds(2))
        // A message typed while the server is not up: kept, and sent once #general exists.
        try input.fileHandleForWriting.write(contentsOf: Data("show\nsend general typed early\n".utf8))
        try await Task.sleep(for: .milliseconds(500))
        let server = try Subprocess(
            chatServer, ["--dev", "--port", "\(port)"], environment: ["CHAT_SERVER_SECRET": ""])
        defer { server.stop() }
        var serverLines = server.lines.makeAsyncIterator()
        let listening = await serverLines.next()
        #expect(listening?.hasPrefix("listening on") == true, "\(listening ?? "nothing")")
        // The terminal tries every second; a machine busy with other tests may take longer.
        try await Task.sleep(for: .seconds(4))
        try input.fileHandleForWriting.write(contentsOf: Data("show\nsend general hello\nquit\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Subprocess.waitForExit(of: terminal)
        #expect(terminal.terminationStatus == 0, "\(text)")
        let screens = text.components(separatedBy: "\n\n")
        let shows = screens.filter { $0.hasPrefix("alice> show") }
        #expect(shows.first?.contains("alice (offline: the server cannot be reached)") == true, "\(shows)")
        #expect(shows.last?.contains("alice (online)") == true && shows.last?.contains("#general") == true, "\(shows)")
        let send = screens.first { $0.hasPrefix("alice> send general hello") } ?? ""
        #expect(send.contains("alice → #general: hello"), "\(send)")
        #expect(shows.last?.contains("alice: typed early") == true, "\(shows)")
        #expect(!(shows.last ?? "").contains("(not sent)"), "\(shows)")
        for jargon in ["SingleConnectionFailure", "errno", "connect()", "retry when"] {
            #expect(!text.contains(jargon), "\(jargon) in: \(text)")
        }
    }

    /// `chat-terminal` shows its connection as a person reads it: online, then — the server
    /// stopped under it — reconnecting, and a command's error in words ("the server cannot be
    /// reached"), not an app's advice. Its help has no `as` (it acts as one user).
    @Test func theTerminalSaysWhenTheServerIsGone() async throws {
        let server = try Subprocess(chatServer, ["--dev", "--port", "0"], environment: ["CHAT_SERVER_SECRET": ""])
        var lines = server.lines.makeAsyncIterator()
        let url = try #require(await lines.next()?.wholeMatch(of: /listening on (ws:\/\/.+)/).map { String($0.1) })
        let terminal = Process()
        terminal.executableURL = Subprocess.product("chat-terminal")
        terminal.arguments = ["--server", url, "--as", "alice", "--no-cache"]
        let input = Pipe()
        let output = Pipe()
        terminal.standardInput = input
        terminal.standardOutput = output
        try terminal.run()
        // Time to connect, on a machine busy with other tests, before the first `show`.
        try input.fileHandleForWriting.write(contentsOf: Data("help\n".utf8))
        try await Task.sleep(for: .seconds(3))
        try input.fileHandleForWriting.write(contentsOf: Data("show\n".utf8))
        try await Task.sleep(for: .milliseconds(500))
        server.process.terminate()
        #expect(await server.exitStatus() == 0)
        try await Task.sleep(for: .seconds(1))
        try input.fileHandleForWriting.write(contentsOf: Data("show\nsend general still there?\nquit\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Subprocess.waitForExit(of: terminal)
        let screens = text.components(separatedBy: "\n\n")
        let help = screens.first { $0.hasPrefix("alice> help") } ?? ""
        #expect(help.contains("send <ch> <text...>") && !help.contains("as <user>"), "\(help)")
        let shows = screens.filter { $0.hasPrefix("alice> show") }
        #expect(shows.first?.contains("alice (online)") == true, "\(shows)")
        #expect(
            shows.last.map { $0.contains("alice (reconnecting…)") || $0.contains("alice (offline") } == true, "\(shows)"
        )
        // What alice types while the server is gone is kept, shown as sending (the outbox).
        let send = screens.first { $0.hasPrefix("alice> send general") } ?? ""
        #expect(send.contains("still there? (sending… it goes once alice is online)"), "\(send)")
        #expect(send.contains("alice: still there?  (sending…)"), "\(send)")
        #expect(!text.contains("retry when the connection is back"), "\(text)")
    }

    @Test func aPythonClientWrittenFromTheProtocolDocumentChats() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Clients/protocol_client.py")
        try await GatewayHarness.run(dev: false) { harness in
            let python = try Subprocess(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", script.path, "\(harness.port)", try await harness.token("alice"),
                    try await harness.token("bob"),
                ],
                environment: try PythonEnvironment.environment())
            var lines = python.lines.makeAsyncIterator()
            let output = await lines.next()
            let status = await python.exitStatus()
            #expect(output == "OK" && status == 0, "\(output ?? "no output"), exit \(status): \(python.standardError)")
            #expect(harness.server.messages(channelId: "py").map(\.text) == ["hello from Python", "sent once"])
        }
    }

    /// `--data PATH`: what a client did comes back after SIGTERM and a restart on the same
    /// file; a file that is not a server store is refused (exit 2) and left as it was.
    /// Operating.md's backup of a running server: `sqlite3 chat.sqlite "VACUUM INTO 'copy'"`,
    /// taken while a client sends, succeeds (the server held the file with an exclusive lock
    /// and it failed with "database is locked"); a server started on the copy serves every
    /// message acknowledged before the backup began. A second server on the live file is still
    /// refused.
    @Test func aBackupTakenWhileTheServerWritesIsRestoredAndServed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chat-server-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chat.sqlite").path
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let (server, port) = try await ChatServerProcess.start(["--data", file, "--no-limits"])
        defer { server.stop() }
        let alice = ChatServerProcess.transport("alice", port: port)
        _ = try await alice.connect(resumingAfter: nil)
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "kept", userIds: [])))
        for index in 0..<200 {
            _ = try await alice.send(.sendMessage(MessageDraft(channelId: "kept", text: "before \(index)")))
        }
        // The client goes on sending while the backup is taken.
        let writer = Task {
            var index = 0
            while !Task.isCancelled, index < 5_000 {
                _ = try? await alice.send(.sendMessage(MessageDraft(channelId: "kept", text: "during \(index)")))
                index += 1
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let backup = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", file, "VACUUM INTO '\(copy)'"], environment: [:])
        let status = await backup.exitStatus()
        writer.cancel()
        _ = await writer.value
        #expect(status == 0, "sqlite3's backup failed: \(backup.standardError)")
        let second = try Subprocess(chatServer, ["--port", "0", "--dev", "--data", file], environment: [:])
        #expect(await second.exitStatus() == 2)
        #expect(second.standardError.contains("in use by another server"), "\(second.standardError)")
        await alice.disconnect()

        let (restored, restoredPort) = try await ChatServerProcess.start(["--data", copy])
        defer { restored.stop() }
        let reader = ChatServerProcess.transport("alice", port: restoredPort)
        _ = try await reader.connect(resumingAfter: nil)
        var texts: [String] = []
        for after in [0, 100] {
            let query = MessagePageQuery(channelId: "kept", position: .after(sequence: after), limit: 100)
            let page = try #require(try await reader.send(.queryMessages(query)).response.messagesValue)
            texts += page.messages.map(\.text)
        }
        #expect(Array(texts.prefix(200)) == (0..<200).map { "before \($0)" })
        await reader.disconnect()
    }

    @Test func itKeepsItsStateInTheDataFileAcrossARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chat-server-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chat.sqlite").path
        try await ChatServerProcess.expectStateKeptAcrossARestart(["--data", file])

        let foreign = directory.appendingPathComponent("notes.txt")
        try Data("not a database, just notes\n".utf8).write(to: foreign)
        let refused = try Subprocess(chatServer, ["--port", "0", "--dev", "--data", foreign.path], environment: [:])
        #expect(await refused.exitStatus() == 2)
        #expect(refused.standardError.contains("not a LiveChannels server store"))
        #expect(try Data(contentsOf: foreign) == Data("not a database, just notes\n".utf8))
    }
}
