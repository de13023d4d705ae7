// swift-tools-version: 6.0
import PackageDescription

/// The fuzz targets: the wire protocol's (libFuzzer) and the structured fuzzer of requests, a
/// package of its own so that `scripts/fuzz-wire` can build
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
        // The structured fuzzer of requests (scripts/fuzz-requests): a plain executable, seeded.
        .executableTarget(
            name: "RequestFuzzer",
            dependencies: [
                .product(name: "ChatAPI", package: "LiveChannels"),
                .product(name: "ChatServer", package: "LiveChannels"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
