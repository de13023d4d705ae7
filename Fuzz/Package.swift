// swift-tools-version: 6.0
import PackageDescription

/// The wire protocol's fuzz target, a package of its own so that `scripts/fuzz-wire` can build
/// it (and the modules it fuzzes) with `-sanitize=fuzzer` without touching the rest.
let package = Package(
    name: "LiveChannelsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "LiveChannels", path: "..")],
    targets: [
        .executableTarget(
            name: "WireFuzzer",
            dependencies: [
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "ChatServer", package: "LiveChannels"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
