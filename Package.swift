// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "LiveChannels",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "LiveCore", targets: ["LiveCore"]),
        .library(name: "ChatAPI", targets: ["ChatAPI"]),
        .library(name: "ChatServer", targets: ["ChatServer"]),
        .library(name: "LiveChannels", targets: ["LiveChannels"]),
        // The tests' shared support, for the `Server/` package's tests (not part of the SDK).
        .library(name: "LiveChannelsTestSupport", targets: ["TestSupport"]),
        // The terminal chat of the Playground example, shared with the Server/ package's
        // chat-terminal (an example, not part of the SDK).
        .library(name: "TerminalChat", targets: ["TerminalChat"]),
    ],
    targets: [
        // The package's locks (not a product). `Lock`, the general one: a benaphore on Linux,
        // which Thread Sanitizer understands (it does not model `Synchronization.Mutex`'s futexes
        // there); a pthread mutex on Apple platforms, or on Linux with `-D LOCKING_PTHREAD`;
        // `Mutex` anywhere else. `FairLock`, the server engine's: a pthread mutex and condition
        // that hand the lock to a waiter once it has waited about 1 ms. `AtomicValue`: a word,
        // `Synchronization.Atomic` on Linux, behind a `Lock` on Apple platforms. And the lock
        // order (`LockRank`), checked in debug builds. Declared `package`, so no product exports
        // them.
        .target(name: "Locking"),
        // Reactive observation core. Knows nothing about chat.
        .target(name: "LiveCore", dependencies: ["Locking"]),
        // The client–server contract: models, query language, requests, events, errors, transport.
        .target(name: "ChatAPI", dependencies: ["Locking"]),
        // The embedded, authoritative chat server.
        // The chat engine: embedded in an app or a test (`ChatServer()`), behind the `chat-server`
        // executable of the `Server/` package, and the core of every node of a cluster. One
        // request path: every request and console call passes the change-log seam (a single node
        // applies inline; a cluster's nodes apply the shared log's entries in order).
        .target(name: "ChatServer", dependencies: ["ChatAPI", "Locking", "CSQLite", "SQLiteSupport", "RowCoding"]),
        // The client SDK.
        .target(
            name: "LiveChannels",
            dependencies: ["LiveCore", "ChatAPI", "CSQLite", "SQLiteSupport", "RowCoding", "Locking"]),
        // SQLite from the system (libsqlite3-dev on Linux, the SDK on Apple platforms): the
        // client's cache on disk.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // Connections, statements and errors over CSQLite (not a product; `package` access):
        // the client's cache and the server's storage share them.
        .target(name: "SQLiteSupport", dependencies: ["CSQLite"]),
        // The compact binary row encoding of the models (not a product; `package` access): the
        // client's cache and the server's storage store values in it.
        .target(name: "RowCoding", dependencies: ["ChatAPI"]),

        // Seeded generators and fixtures shared by tests and benchmarks (not a product).
        // Seeded generators, fixtures and workloads shared by the tests and benchmarks of both
        // packages (a product for the `Server/` package's tests; not part of the SDK).
        .target(
            name: "TestSupport", dependencies: ["LiveCore", "Locking", "ChatServer", "ChatAPI"],
            path: "Tests/TestSupport"),

        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "LiveCoreTests", dependencies: ["LiveCore", "Locking", "TestSupport"]),
        .testTarget(name: "ChatAPITests", dependencies: ["ChatAPI", "TestSupport"]),
        .testTarget(
            name: "ChatServerTests",
            dependencies: ["ChatServer", "ChatAPI", "Locking", "SQLiteSupport", "RowCoding", "TestSupport"]),
        .testTarget(
            name: "LiveChannelsTests",
            dependencies: [
                "LiveChannels", "ChatServer", "LiveCore", "ChatAPI", "Locking", "SQLiteSupport", "RowCoding",
                "TestSupport",
            ]),

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
        // A server writing to its store until killed (the storage crash test).
        .executableTarget(
            name: "ServerStorageProbe", dependencies: ["ChatServer", "ChatAPI"], path: "Examples/ServerStorageProbe"),
        // A chat in the terminal: act as any user while panes show each user's live channel list
        // (the terminal chat itself, shared with chat-terminal, and the embedded server).
        .target(name: "TerminalChat", dependencies: ["LiveChannels"], path: "Examples/TerminalChat"),
        .executableTarget(
            name: "Playground", dependencies: ["TerminalChat", "LiveChannels", "ChatServer"],
            path: "Examples/Playground"),
        // The SDK from top-level code, compiled with warnings as errors (run by ExamplesTests).
        .executableTarget(
            name: "TopLevel", dependencies: ["LiveChannels", "ChatServer"], path: "Examples/TopLevel",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),

        // README's quick tour, verbatim (ExamplesTests checks it is): it compiles as a main.swift.
        .executableTarget(
            name: "ReadmeTour", dependencies: ["LiveChannels", "ChatServer"], path: "Examples/ReadmeTour",
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
        .testTarget(name: "ExamplesTests", dependencies: ["TerminalChat"]),

        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "LiveCore", "ChatAPI", "ChatServer", "LiveChannels", "Locking", "TestSupport", "CSQLite", "RowCoding",
            ],
            path: "Benchmarks",
            // A package of its own (GRDB, the lists baseline): the root keeps zero dependencies.
            exclude: ["GRDBComparison"]),
    ],
    swiftLanguageModes: [.v6]
)
