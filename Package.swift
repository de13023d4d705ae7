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
        // A chat in the terminal: act as any user while panes show each user's live channel list.
        .executableTarget(
            name: "Playground", dependencies: ["LiveChannels", "ChatServer"], path: "Examples/Playground"),
        // The SDK from top-level code, compiled with warnings as errors (run by ExamplesTests).
        .executableTarget(
            name: "TopLevel", dependencies: ["LiveChannels", "ChatServer"], path: "Examples/TopLevel",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),

        // Executable documentation: the DocumentationTestsPlugin runs DocTestGenerator over
        // README.md and the DocC articles; every ```swift block becomes a test.
        .executableTarget(name: "DocTestGenerator", path: "Tools/DocTestGenerator"),
        .plugin(
            name: "DocumentationTestsPlugin", capability: .buildTool(), dependencies: ["DocTestGenerator"]),
        .testTarget(
            name: "DocumentationTests", dependencies: ["LiveChannels", "ChatServer", "LiveCore"],
            plugins: ["DocumentationTestsPlugin"]),
        // Runs the example executables (TopLevel, Playground) as a user would.
        .testTarget(name: "ExamplesTests"),

        .executableTarget(
            name: "Benchmarks",
            dependencies: ["LiveCore", "ChatAPI", "ChatServer", "LiveChannels", "TestSupport", "CSQLite"],
            path: "Benchmarks"),
    ],
    swiftLanguageModes: [.v6]
)
