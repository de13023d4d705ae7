import ChatAPI
import Foundation
import SQLiteSupport
import Testing
import TestSupport

@testable import ChatServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server process killed with SIGKILL while writing under load loses no acknowledged change:
/// 20 runs on one file, each killed at a different point (after a seeded number of
/// acknowledgements, from the first few to a few thousand), each followed by a restart that
/// must open cleanly and hold every message acknowledged so far.
@Suite(.timeLimit(.minutes(3))) struct StorageCrashTests {
    /// The `ServerStorageProbe` executable, built beside the test bundle by `swift build`.
    static var probe: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        return candidates.map { $0.appendingPathComponent("ServerStorageProbe") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func killedServersLoseNoAcknowledgedChange() async throws {
        let probe = try #require(Self.probe, "build the ServerStorageProbe product (swift build --build-tests)")
        let directory = StoreDirectory()
        defer { directory.remove() }
        let seed = SeededGenerator.testSeed(24)
        var generator = SeededGenerator(seed: seed)
        var acknowledged: Set<String> = []
        for run in 0..<20 {
            let killAfter =
                [1, 5, 20, 100, 400, 1_500].randomElement(using: &generator)!
                + Int.random(in: 0..<50, using: &generator)
            let process = Process()
            process.executableURL = probe
            process.arguments = [directory.file.path, "\(Int.random(in: 1...16, using: &generator))"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var text = ""
            var acks = 0
            let handle = output.fileHandleForReading
            while acks < killAfter, !text.contains("failed") {
                let data = handle.readAvailable()
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
                acks = text.components(separatedBy: "\nack ").count - 1
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever arrived before the kill was acknowledged (a last partial line is not).
            while case let data = handle.readAvailable(), !data.isEmpty {
                text += String(decoding: data, as: UTF8.self)
            }
            #expect(!text.contains("failed"), "run \(run), seed \(seed): \(text.suffix(300))")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            acknowledged.formUnion(lines.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) })

            let server = try ChatServer(
                configuration: ServerConfiguration(messagesPerChannel: .max), storage: .sqlite(directory.file))
            var stored: Set<String> = []
            for number in 0..<3 {
                let messages = server.messages(channelId: "room-\(number)")
                stored.formUnion(messages.map(\.messageId))
                #expect(messages.map(\.sequence) == Array(1...max(1, messages.count)).prefix(messages.count).map { $0 })
            }
            let lost = acknowledged.subtracting(stored)
            #expect(lost.isEmpty, "run \(run), seed \(seed): \(lost.count) acknowledged messages lost")
            await server.close()
            let check = try SQLiteConnection(path: directory.file.path)
            var result = ""
            try check.statement("PRAGMA integrity_check").query { result = $0.string(at: 0) }
            #expect(result == "ok", "run \(run)")
        }
        #expect(acknowledged.count > 1_000, "the runs wrote under load")
    }
}
