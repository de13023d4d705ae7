import ArgumentParser
import ChatAPI
import ChatAdmin
import ChatGateway
import ChatPush
import ChatServer
import ChatServerPostgres
import Foundation
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `chat-server`: one `ChatServer` behind a `ChatGateway`, until SIGINT or SIGTERM.
@main
struct ChatServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-server",
        abstract: "A LiveChannels chat server over WebSocket (ws://HOST:PORT/v1/connect).",
        discussion: """
            Tokens are JWTs (HS256) signed with the secret in CHAT_SERVER_SECRET or --secret-file \
            (at least 32 bytes); `chat-server token USER` prints one. --dev also accepts the tokens \
            dev:USER, for trying it out.
            """,
        subcommands: [TokenCommand.self])

    /// Runs the command line. Every refusal of it — a flag that does not parse, one
    /// ``validate()`` finds out of range, a missing or short secret — is reported the same way:
    /// `Error: …` and the usage on standard error, exit status 2. Other failures keep their
    /// status (1: PostgreSQL unreachable or a port in use).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(parsing: .unconditional, help: "The port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "The server's SQLite file, created if missing (without it, state is in memory).") var data: String?
    @Option(
        help:
            "Keep the state in PostgreSQL, schema chat: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE] (or CHAT_SERVER_POSTGRES)."
    )
    var postgres: String?
    @Option(
        help:
            "With --postgres: this node's name in logs, metrics and the cluster's log (default: a random id per start). Every chat-server on the same --postgres and secret is one service."
    )
    var nodeId: String?
    @Flag(
        help:
            "With --data: every commit waits for the disk (fsync), so not even a power loss loses an acknowledged change."
    )
    var durableOnPowerLoss = false
    @Flag(help: "Accept dev tokens (dev:USER): for trying it out, never in production.") var dev = false
    @Flag(
        help:
            "After restoring a backup of --data or --postgres: start a new history (epoch), so every client drops its cache and reloads."
    )
    var newEpoch = false
    @Option(help: "Register USER as an admin (repeatable).") var admin: [String] = []
    @Option(parsing: .unconditional, help: "Seconds between pings to each connection (at most 3600).") var pingInterval:
        Double = 15
    @Option(help: "A file holding the secret (instead of CHAT_SERVER_SECRET).") var secretFile: String?
    @Option(parsing: .unconditional, help: "The largest frame a client may send, in bytes.") var maxFrameBytes =
        1_048_576
    @Option(
        parsing: .unconditional, help: "Events a connection may have pending before it is closed as too slow (4009).")
    var maxPendingEvents = 10_000
    @Option(parsing: .unconditional, help: "Requests per second per device (bursts of twice as many).")
    var requestsPerSecond: Double = 100
    @Option(parsing: .unconditional, help: "Messages (sends and edits) per second per user (bursts of twice as many).")
    var messagesPerSecond: Double = 20
    @Option(parsing: .unconditional, help: "Devices of one user connected at once.") var maxDevices = 20
    @Option(parsing: .unconditional, help: "Events kept per device for resuming; a device further behind resyncs.")
    var replayLog = 10_000
    @Option(parsing: .unconditional, help: "A message's text and metadata together, in bytes.") var maxMessageBytes =
        65_536
    @Option(parsing: .unconditional, help: "Channels one user may create per hour.") var channelsPerHour = 100
    @Flag(
        help:
            "Turn off the rate limits, the channel quota and the device cap, for load tests (the caps that protect memory stay)."
    )
    var noLimits = false
    @OptionGroup(title: "Push notifications") var push: PushOptions

    mutating func run() async throws {
        let secret = try Secret.load(file: secretFile)
        guard secret != nil || dev else {
            throw ValidationError(
                """
                chat-server needs a secret to check tokens: export CHAT_SERVER_SECRET=$(openssl rand -hex 32) \
                or pass --secret-file PATH (at least 32 bytes), or start with --dev to try it out with dev tokens.
                """)
        }
        var logger = Logger(label: "chat-server")
        logger.logLevel = .info
        let metrics = GatewayMetrics()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        if dev {
            FileHandle.standardError.write(
                Data(
                    "WARNING: --dev: dev tokens (dev:USER) are accepted; anyone can act as anyone. Never use this in production.\n"
                        .utf8))
        }
        var serverConfiguration = ServerConfiguration.standard
        serverConfiguration.durability = durableOnPowerLoss ? .powerLoss : .processCrash
        serverConfiguration.startsNewEpoch = newEpoch
        serverConfiguration.eventLogCapacity = replayLog
        serverConfiguration.maxPendingEvents = maxPendingEvents
        serverConfiguration.maxMessageBytes = maxMessageBytes
        serverConfiguration.requestsPerSecond = noLimits ? nil : requestsPerSecond
        serverConfiguration.messagesPerSecond = noLimits ? nil : messagesPerSecond
        serverConfiguration.maxDevicesPerUser = noLimits ? nil : maxDevices
        serverConfiguration.channelsPerUserPerHour = noLimits ? nil : channelsPerHour
        // The services: the storage's own (the PostgreSQL client), then the node, which opens
        // the server on it; shutdown runs in reverse, so the node writes before they stop.
        var services: [any Service] = []
        let open: @Sendable () async throws -> ChatServer
        // What a cluster's nodes share besides chat state (the APNs token, ended console sessions).
        var sharedValues: (any ClusterSharedValues)?
        if let url = postgresURL {
            let endpoint = try PostgresEndpoint(url: url)  // checked by validate()
            let database = PostgresServerDatabase(endpoint, runsItsClient: false, logger: logger)
            services.append(database.client)
            sharedValues = PostgresSharedValues(database: database)
            let node = nodeId ?? ChatServer.randomNodeId()
            open = { [serverConfiguration] in
                try await Self.openPostgres(database, at: endpoint, node: node, configuration: serverConfiguration)
            }
        } else {
            let storage: ServerStorage = data.map { .sqlite(URL(fileURLWithPath: $0)) } ?? .inMemory
            let data = data
            open = { [serverConfiguration] in
                if let data, let folder = Self.missingFolder(of: data) {
                    throw StartupFailure(
                        message:
                            "cannot use --data \(data): the folder \(folder) does not exist; create it first (mkdir -p \(folder))",
                        status: 2)
                }
                do {
                    return try ChatServer(configuration: serverConfiguration, storage: storage)
                } catch {
                    throw StartupFailure(message: "cannot use --data \(data ?? ""): \(error.reason)", status: 2)
                }
            }
        }
        let authority = try await TokenAuthority(secret: secret, allowsDevTokens: dev)
        // The providers' HTTP client stops last, after the node's pushes.
        let (pushProviders, pushClientShutdown) = try await push.start(sharedValues: sharedValues)
        if let pushClientShutdown { services.insert(pushClientShutdown, at: 0) }
        let gatewayConfiguration = GatewayConfiguration(
            host: host, port: port, pingInterval: .milliseconds(Int(pingInterval * 1_000)),
            maximumFrameBytes: maxFrameBytes)
        let host = host
        let nodeValues = sharedValues
        services.append(
            ChatNode(
                open: open, admins: admin, pushProviders: pushProviders,
                makeGateway: { [logger] server, pushes in
                    // The admin API and the console, served by the gateway beside the front.
                    let admin = await ChatAdmin(
                        server: server, authority: authority, secret: secret, sharedValues: nodeValues,
                        metrics: metrics, logger: logger)
                    return ChatGateway(
                        server: server, configuration: gatewayConfiguration, authority: authority, metrics: metrics,
                        pushQueue: pushes?.counts, additions: [admin], logger: logger)
                },
                onRunning: { port in
                    FileHandle.standardOutput.write(
                        Data("listening on ws://\(host):\(port)\(WireProtocol.connectPath)\n".utf8))
                },
                logger: logger))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let failure as StartupFailure {
            FileHandle.standardError.write(Data("chat-server: \(failure.message)\n".utf8))
            throw ExitCode(failure.status)
        } catch  where "\(error)".contains("Address already in use") {
            FileHandle.standardError.write(
                Data("chat-server: cannot listen on \(host):\(port): the port is in use by another program.\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The folder `path`'s file would be in, when it does not exist (`nil` when it does).
    static func missingFolder(of path: String) -> String? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? nil : folder
    }

    /// `--postgres`, or `CHAT_SERVER_POSTGRES` (an empty value: none).
    private var postgresURL: String? {
        postgres ?? ProcessInfo.processInfo.environment["CHAT_SERVER_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A server on the PostgreSQL `database` (its client running in the group): a `chat`
    /// schema that is not ours (or newer) fails with status 2; a database that does not answer
    /// within 30 s, or refuses us (a wrong password, no such database), with status 1 — each
    /// with a one-line message.
    private static func openPostgres(
        _ database: PostgresServerDatabase, at endpoint: PostgresEndpoint, node: String,
        configuration: ServerConfiguration
    ) async throws -> ChatServer {
        // Said once, when the database has not answered within a second: the wait is not silent.
        // On a queue of Dispatch's, not a task: it is said even while the tasks' threads wait.
        let notice = DispatchWorkItem {
            FileHandle.standardError.write(
                Data("chat-server: waiting for PostgreSQL at \(endpoint) (up to 30 s)…\n".utf8))
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1, execute: notice)
        defer { notice.cancel() }
        do {
            try await database.prepare()
            notice.cancel()
            // Taken here to tell a node id in use (status 2) from the rest; opening takes it again
            // (the same lease).
            _ = try await database.lease(node: node)
            return try await ChatServer(configuration: configuration, opening: .cluster(database, nodeId: node))
        } catch is CancellationError {
            throw StartupFailure(message: "stopped while waiting for PostgreSQL at \(endpoint)", status: 0)
        } catch let error as ServerNodeInUse {
            throw StartupFailure(message: "--node-id \(node): \(error)", status: 2)
        } catch let error as PostgresStoreError {
            if case .notOurs = error { throw StartupFailure(message: "--postgres \(endpoint): \(error)", status: 2) }
            throw StartupFailure(message: "--postgres \(endpoint): \(error)", status: 1)
        } catch {
            throw StartupFailure(message: "--postgres \(endpoint): \(String(reflecting: error).prefix(500))", status: 1)
        }
    }

    /// Refuses the first option outside its range, naming it and the range (exit 2, see
    /// ``main()``). NaN is outside every range; so is any value that could not be turned into
    /// what it sets.
    func validate() throws {
        func check(_ holds: Bool, _ flag: String, _ range: String) throws {
            if !holds { throw ValidationError("\(flag) must be \(range).") }
        }
        try check((0...65_535).contains(port), "--port", "from 0 to 65535 (0 picks a free one)")
        try check(pingInterval > 0 && pingInterval <= 3_600, "--ping-interval", "more than 0 and at most 3600 seconds")
        try check((1...64 * 1_048_576).contains(maxFrameBytes), "--max-frame-bytes", "from 1 to 67108864 (64 MiB)")
        try check((1...10_000_000).contains(maxPendingEvents), "--max-pending-events", "from 1 to 10000000")
        try check(
            requestsPerSecond > 0 && requestsPerSecond <= 1_000_000, "--requests-per-second",
            "more than 0 and at most 1000000")
        try check(
            messagesPerSecond > 0 && messagesPerSecond <= 1_000_000, "--messages-per-second",
            "more than 0 and at most 1000000")
        try check((1...100_000).contains(maxDevices), "--max-devices", "from 1 to 100000")
        try check((1...10_000_000).contains(replayLog), "--replay-log", "from 1 to 10000000")
        try check((1...64 * 1_048_576).contains(maxMessageBytes), "--max-message-bytes", "from 1 to 67108864 (64 MiB)")
        try check((1...1_000_000).contains(channelsPerHour), "--channels-per-hour", "from 1 to 1000000")
        if let url = postgresURL {
            do {
                _ = try PostgresEndpoint(url: url)
            } catch {
                throw ValidationError("--postgres: \(error)")
            }
        }
        if let nodeId {
            if postgresURL == nil { throw ValidationError("--node-id names a node of a cluster: it needs --postgres.") }
            do {
                try ChatServer.checkNodeId(nodeId)
            } catch {
                throw ValidationError("--node-id: \(error)")
            }
        }
        if let data {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory), isDirectory.boolValue {
                throw ValidationError(
                    "--data \(data) is a folder; give the file to keep the state in, such as \(URL(fileURLWithPath: data).appendingPathComponent("chat.sqlite").path)."
                )
            }
        }
        do {
            _ = try SocketAddress.makeAddressResolvingHost(host, port: 0)
        } catch {
            throw ValidationError(
                "--host \(host) is not an address to listen on: give an IP address of this machine (127.0.0.1, or 0.0.0.0 for every interface) or a name that resolves to one."
            )
        }
        if data != nil && postgresURL != nil {
            throw ValidationError(
                "--postgres (or CHAT_SERVER_POSTGRES) and --data exclude each other: the state lives in one place.")
        }
        if durableOnPowerLoss && data == nil {
            throw ValidationError(
                "--durable-on-power-loss makes commits to the --data file wait for the disk; without --data there is no file."
            )
        }
    }
}

extension Error {
    /// What went wrong, for a person at a terminal: a `ChatError`'s reason without the advice
    /// meant for an app ("retry when the connection is back").
    var reason: String {
        switch self as? ChatError {
        case .unavailable(let reason)?, .invalidArgument(_, let reason)?: reason
        default: "\(self)"
        }
    }
}

/// `chat-server token USER`: prints a signed token.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print a token for USER, signed with the server's secret.")

    @Argument(help: "The user the token signs in.") var user: String
    @Option(parsing: .unconditional, help: "Seconds the token is valid (at most ten years).") var ttl: Double = 3_600

    /// The longest validity a token is signed for: ten years of 365 days.
    static let longestTTL: Double = 315_360_000
    @Option(help: "A file holding the secret (instead of CHAT_SERVER_SECRET).") var secretFile: String?
    /// The server command, whose own `--secret-file` takes the option wherever it is written:
    /// the file is whichever of the two got it.
    @ParentCommand var server: ChatServerCommand

    /// Refuses a user id the server would refuse, and a validity that is not a positive number
    /// of seconds up to ten years (NaN fails both comparisons).
    func validate() throws {
        do {
            try IdentifierRules.validate(user, field: "USER")
        } catch {
            throw ValidationError("the server would refuse this user id: \(error.reason).")
        }
        guard ttl > 0, ttl <= Self.longestTTL else {
            throw ValidationError(
                "--ttl must be a positive number of seconds up to \(Int(Self.longestTTL)) (ten years).")
        }
    }

    /// Prints the token; a secret that is missing or cannot be read is said in one line,
    /// `chat-server token: …`, with status 2 (not the server command's usage: the arguments were
    /// right).
    mutating func run() async throws {
        let secret: [UInt8]
        do {
            guard let loaded = try Secret.load(file: secretFile ?? server.secretFile) else {
                throw ValidationError(
                    "a token is signed with the server's secret: set CHAT_SERVER_SECRET or pass --secret-file PATH.")
            }
            secret = loaded
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("chat-server token: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
        let authority = try await TokenAuthority(secret: secret, allowsDevTokens: false)
        print(try await authority.makeToken(for: user, ttl: ttl))
    }
}

/// The server's secret: the UTF-8 bytes of `CHAT_SERVER_SECRET` or of a file, trailing newlines
/// and spaces trimmed, at least 32 bytes (else a `ValidationError`: exit 2).
enum Secret {
    static func load(file: String?) throws -> [UInt8]? {
        let text: String
        if let file {
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read the secret file \(file): \(error.localizedDescription)")
            }
        } else if let value = ProcessInfo.processInfo.environment["CHAT_SERVER_SECRET"] {
            text = value
        } else {
            return nil
        }
        var trimmed = Substring(text)
        while let last = trimmed.last, last == "\n" || last == "\r" || last == " " || last == "\t" {
            trimmed.removeLast()
        }
        // An empty variable (or file) gives no secret, as an unset one does.
        guard !trimmed.isEmpty else { return nil }
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= TokenAuthority.minimumSecretLength else {
            throw ValidationError(
                "the secret is \(bytes.count) bytes; it must be at least \(TokenAuthority.minimumSecretLength) (openssl rand -hex 32 makes one)."
            )
        }
        return bytes
    }
}
