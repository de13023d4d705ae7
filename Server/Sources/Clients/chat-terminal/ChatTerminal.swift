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
    @Option(
        help: ArgumentHelp(
            "The cache file: what was shown, and the messages still sending when you quit, sent at the next start.",
            discussion: "Default: one per user and server in $XDG_CACHE_HOME (or ~/.cache)/livechannels/chat-terminal.",
            valueName: "file"))
    var cache: String?
    @Flag(help: "Keep nothing on disk: messages still sending when you quit are lost.") var noCache = false

    @MainActor
    mutating func run() async throws {
        guard let url = URL(string: server), url.scheme == "ws" || url.scheme == "wss" else {
            throw ValidationError("--server must be a ws:// or wss:// URL")
        }
        let token = token ?? "dev:\(user)"
        let interactive = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
        let file = noCache ? nil : cache.map { URL(fileURLWithPath: $0) } ?? Self.defaultCache(user: user, server: url)
        let playground = Playground(
            userIds: [user], interactive: interactive, color: interactive || color,
            persistence: { _ in file.map { .sqlite($0) } ?? .inMemory }
        ) { id in
            WebSocketTransport(
                url: url, userId: id, deviceId: "terminal", token: { token }, connector: NIOWebSocketConnector())
        }
        playground.title = "LiveChannels chat — \(user) on \(url.absoluteString)"
        playground.keepsMessagesSending = file?.path
        playground.pushesWhenAway = { user in
            "while \(user) is away, the server pushes each message to it if it was started with a push provider (APNs, FCM or --push-webhook)"
        }
        // Ctrl-C quits as `quit` does: the cache is written before the process ends.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        interrupt.setEventHandler {
            Task { @MainActor in
                await playground.quit()
                #if canImport(Glibc)
                    Glibc.exit(0)
                #else
                    Darwin.exit(0)
                #endif
            }
        }
        interrupt.resume()
        do {
            try await playground.start()
        } catch ChatError.invalidArgument(field: "persistence", let reason) {
            throw ValidationError(
                "\(reason). Another chat-terminal as \(user) may have it open: give another --cache file, or --no-cache."
            )
        }
        await playground.runCommandsFromStandardInput()
        interrupt.cancel()
    }

    /// The cache file of `user` on `server`: `$XDG_CACHE_HOME` (or `~/.cache`)
    /// `/livechannels/chat-terminal/USER@HOST_PORT.sqlite`, its folder made if missing; `nil`,
    /// said on standard error, when the folder cannot be made (the chat goes on without a cache).
    static func defaultCache(user: String, server: URL) -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        let folder = base.appendingPathComponent("livechannels/chat-terminal")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            FileHandle.standardError.write(
                Data(
                    "chat-terminal: no cache (cannot make the folder \(folder.path)): messages still sending when you quit are lost; give --cache FILE to keep them.\n"
                        .utf8))
            return nil
        }
        let safe = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        let port = server.port ?? (server.scheme == "wss" ? 443 : 80)
        return folder.appendingPathComponent("\(safe(user))@\(safe(server.host ?? "server"))_\(port).sqlite")
    }
}
