// swift-tools-version: 6.2
import PackageDescription

/// LiveChannels over the network, on the Swift server ecosystem: a package of its own, so that an
/// app embedding LiveChannels (the root package, no dependencies) never pulls a server stack.
///
/// - `Sources/Service`: what an operator deploys — `chat-server`, its WebSocket front
///   (`ChatGateway`, with the admin API and the console), its pushes (`ChatPush`) and its
///   PostgreSQL store (`ChatServerPostgres`).
/// - `Sources/Clients`: what reaches a server — the SDK's WebSocket connector on SwiftNIO
///   (`LiveChannelsNIO`) and the terminal chat (`chat-terminal`).
/// - `Sources/Tools`: the load generator (`chat-load`).
let package = Package(
    name: "LiveChannelsNetworking",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18)],
    products: [
        .executable(name: "chat-server", targets: ["chat-server"]),
        .executable(name: "chat-terminal", targets: ["chat-terminal"]),
        .executable(name: "chat-load", targets: ["chat-load"]),
        .library(name: "ChatGateway", targets: ["ChatGateway"]),
        .library(name: "ChatAdmin", targets: ["ChatAdmin"]),
        .library(name: "ChatPush", targets: ["ChatPush"]),
        .library(name: "LiveChannelsNIO", targets: ["LiveChannelsNIO"]),
        .library(name: "ChatServerPostgres", targets: ["ChatServerPostgres"]),
    ],
    dependencies: [
        .package(name: "LiveChannels", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // The push tests' stand-ins: their certificates (X509, SwiftASN1).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // The network front of one ChatServer: /v1/connect, /healthz, /metrics, tokens,
        // heartbeats, close codes, and the roles served beside it (GatewayAddition). No chat rule
        // lives here.
        .target(
            name: "ChatGateway",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Service/ChatGateway"),
        // The admin role served by the gateway: the admin API for an app's backend, and the
        // operator's console (its pages, sessions and overview). Wired by chat-server's node.
        .target(
            name: "ChatAdmin",
            dependencies: [
                "ChatGateway",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Service/ChatAdmin",
            // The console's pages, compiled in by ConsoleAssetsPlugin.
            exclude: ["Console/Pages"],
            plugins: ["ConsoleAssetsPlugin"]),
        // A node's pushes: a bounded queue per provider, their delivery with retries, and the
        // providers (APNs, FCM HTTP v1, a signed webhook). Wired by chat-server's node.
        .target(
            name: "ChatPush",
            dependencies: [
                "ChatGateway",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Service/ChatPush"),
        // Embeds the console's pages (HTML, CSS, JavaScript modules) into ChatAdmin.
        .executableTarget(name: "ConsoleAssetGenerator", path: "Sources/Tools/ConsoleAssetGenerator"),
        .plugin(name: "ConsoleAssetsPlugin", capability: .buildTool(), dependencies: ["ConsoleAssetGenerator"]),
        // The server's state in PostgreSQL: a ServerDatabase on postgres-nio (chat-server --postgres).
        .target(
            name: "ChatServerPostgres",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Service/ChatServerPostgres"),
        // The executable: flags → configuration, secret, signals.
        .executableTarget(
            name: "chat-server",
            dependencies: [
                "ChatGateway", "ChatAdmin", "ChatPush", "ChatServerPostgres",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Service/chat-server"),
        // The Playground's terminal chat (the root package's TerminalChat) joined to a chat-server.
        .executableTarget(
            name: "chat-terminal",
            dependencies: [
                "LiveChannelsNIO",
                .product(name: "TerminalChat", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Clients/chat-terminal"),
        // The client's WebSocketConnector on SwiftNIO (Linux has no URLSession WebSockets).
        .target(
            name: "LiveChannelsNIO",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Clients/LiveChannelsNIO"),
        // The load generator: idle connections, fan-out, latency, each beside a bare
        // Hummingbird WebSocket broadcast (the floor of the stack).
        .executableTarget(
            name: "chat-load",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "ChatGateway", "LiveChannelsNIO", "ChatServerPostgres",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/Tools/chat-load"),
        // The tests, by product. Shared support (processes, harnesses, a throw-away PostgreSQL,
        // the Python clients' environment) is a target of its own; the root package's seeded
        // generators and storage workload come as its `LiveChannelsTestSupport` product.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "ChatGateway", "ChatAdmin", "ChatServerPostgres", "LiveChannelsNIO",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "LiveCore", package: "LiveChannels"),
                .product(name: "LiveChannelsTestSupport", package: "LiveChannels"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/ServerTestSupport"),
        // The gateway: the wire over WebSocket, tokens, heartbeats, limits, SDK clients through it.
        .testTarget(
            name: "ChatGatewayTests",
            dependencies: [
                "ServerTestSupport", "ChatGateway", "LiveChannelsNIO",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "LiveCore", package: "LiveChannels"),
                .product(name: "LiveChannelsTestSupport", package: "LiveChannels"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The admin API (in process, through Hummingbird's router test framework) and the
        // console's sessions and pages.
        .testTarget(
            name: "ChatAdminTests",
            dependencies: [
                "ServerTestSupport", "ChatAdmin", "ChatGateway",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // A node's pushes in process: payloads, waits, lanes, reasons in metrics and logs.
        .testTarget(
            name: "ChatPushTests",
            dependencies: [
                "ChatPush", "ChatGateway",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The PostgreSQL store against a real PostgreSQL.
        .testTarget(
            name: "ChatServerPostgresTests",
            dependencies: [
                "ServerTestSupport", "ChatServerPostgres",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "LiveChannelsTestSupport", package: "LiveChannels"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        // Several chat-server nodes on one PostgreSQL, scripts/cluster, the cross-node rules.
        .testTarget(
            name: "ChatClusterTests",
            dependencies: [
                "ServerTestSupport", "LiveChannelsNIO",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "LiveChannelsTestSupport", package: "LiveChannels"),
            ],
            exclude: ["Clients"]),
        // The clients' connectors.
        .testTarget(
            name: "ChatClientsTests",
            dependencies: [
                "ServerTestSupport", "LiveChannelsNIO",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                .product(name: "WSClient", package: "swift-websocket"),
            ]),
        // The executables as an operator and a user run them: chat-server, chat-terminal, and a
        // Python client written from the protocol document.
        .testTarget(
            name: "ChatToolsTests",
            dependencies: [
                "ServerTestSupport", "chat-server", "chat-terminal", "chat-load", "ChatGateway", "ChatPush",
                .product(name: "ChatServer", package: "LiveChannels"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "LiveChannels", package: "LiveChannels"),
                // The APNs and FCM stand-ins: HTTP/2 over TLS, JWTs checked with the keys' public
                // halves, certificates made by the test.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["Clients"]),
    ],
    swiftLanguageModes: [.v6]
)
