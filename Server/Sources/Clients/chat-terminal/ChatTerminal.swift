import ArgumentParser
import Foundation
import LiveChannels
import TerminalChat
import LiveChannelsNIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `chat-terminal`: the Playground's terminal chat (the `TerminalChat` target), joined to
/// a `chat-server` over WebSocket as one user. Run one per person:
///
///     chat-server --dev
///     chat-terminal --server ws://127.0.0.1:8080/v1/connect --as alice
///     chat-terminal --server ws://127.0.0.1:8080/v1/connect --as bob
@main
struct ChatTerminal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-terminal", abstract: "Chat through a chat-server, in the terminal (type help).")

    @Option(help: "The server's connect URL.") var server = "ws://127.0.0.1:8080/v1/connect"
    @Option(name: .customLong("as"), help: "The user to act as.") var user: String
    @Option(help: "The token to sign in with (default: the dev token dev:USER, for chat-server --dev).")
    var token: String?
    @Flag(help: "Keep ANSI colours when standard output is not a terminal.") var color = false

    @MainActor
    mutating func run() async throws {
        guard let url = URL(string: server), url.scheme == "ws" || url.scheme == "wss" else {
            throw ValidationError("--server must be a ws:// or wss:// URL")
        }
        let token = token ?? "dev:\(user)"
        let interactive = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
        let playground = Playground(userIds: [user], interactive: interactive, color: interactive || color) { id in
            WebSocketTransport(
                url: url, userId: id, deviceId: "terminal", token: { token }, connector: NIOWebSocketConnector())
        }
        playground.title = "LiveChannels chat — \(user) on \(url.absoluteString)"
        try await playground.start()
        await playground.runCommandsFromStandardInput()
    }
}
