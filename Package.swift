// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "LiveChannels",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiveCore", targets: ["LiveCore"]),
        .library(name: "ChatAPI", targets: ["ChatAPI"]),
        .library(name: "ChatServer", targets: ["ChatServer"]),
        .library(name: "LiveChannels", targets: ["LiveChannels"]),
    ],
    targets: [
        // Reactive observation core. Knows nothing about chat.
        .target(name: "LiveCore"),
        // The client–server contract: models, query language, requests, events, errors, transport.
        .target(name: "ChatAPI"),
        // The embedded, authoritative chat server.
        .target(name: "ChatServer", dependencies: ["ChatAPI"]),
        // The client SDK.
        .target(name: "LiveChannels", dependencies: ["LiveCore", "ChatAPI", "CSQLite"]),
        // SQLite from the system (libsqlite3-dev on Linux, the SDK on Apple platforms): the
        // client's cache on disk.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),

        // Seeded generators and fixtures shared by tests and benchmarks (not a product).
        .target(name: "TestSupport", dependencies: ["LiveCore"], path: "Tests/TestSupport"),

        .testTarget(name: "LiveCoreTests", dependencies: ["LiveCore", "TestSupport"]),
        .testTarget(name: "ChatAPITests", dependencies: ["ChatAPI", "TestSupport"]),
        .testTarget(name: "ChatServerTests", dependencies: ["ChatServer", "ChatAPI", "TestSupport"]),
        .testTarget(
            name: "LiveChannelsTests",
            dependencies: ["LiveChannels", "ChatServer", "LiveCore", "ChatAPI", "TestSupport"]),

        .executableTarget(
            name: "QuickStart", dependencies: ["LiveChannels", "ChatServer", "LiveCore"],
            path: "Examples/QuickStart"),
        // The Stream Chat seed snippets on the Stream-style controllers.
        .executableTarget(
            name: "StreamStyle", dependencies: ["LiveChannels", "ChatServer"], path: "Examples/StreamStyle"),
        // A client writing to its cache on disk until killed (the persistence crash test).
        .executableTarget(
            name: "PersistenceProbe", dependencies: ["LiveChannels", "ChatServer"],
            path: "Examples/PersistenceProbe"),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["LiveCore", "ChatAPI", "ChatServer", "LiveChannels", "TestSupport", "CSQLite"],
            path: "Benchmarks"),
    ],
    swiftLanguageModes: [.v6]
)
