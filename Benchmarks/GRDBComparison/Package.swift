// swift-tools-version: 6.2
import PackageDescription

/// The baseline of `Benchmarks lists`' one-update-at-a-time row: GRDB's `ValueObservation` of
/// the same indexed query, per update, the writer waiting for the observer. A package of its own
/// so that the root package keeps zero dependencies; run it with `scripts/compare-grdb`.
let package = Package(
    name: "GRDBComparison",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0")
    ],
    targets: [
        .executableTarget(name: "grdb-comparison", dependencies: [.product(name: "GRDB", package: "GRDB.swift")])
    ],
    swiftLanguageModes: [.v6]
)
