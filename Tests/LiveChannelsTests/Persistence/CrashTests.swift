import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client killed with SIGKILL in the middle of writing leaves a file that opens and holds a
/// consistent state: a prefix of what it applied.
@Suite(.timeLimit(.minutes(1))) struct CrashTests {
    /// The `PersistenceProbe` executable, built beside the test bundle by `swift build`.
    static var probe: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        return candidates.map { $0.appendingPathComponent("PersistenceProbe") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test(arguments: [7, 23, 61]) func killedWhileWritingLeavesAConsistentFile(after sent: Int) async throws {
        let probe = try #require(Self.probe, "build the PersistenceProbe product (swift build --build-tests)")
        let directory = TemporaryDirectory()
        let file = directory.file()
        let process = Process()
        process.executableURL = probe
        process.arguments = [file.path, "3"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Kill it once it has sent `sent` messages (it goes on writing all the while).
        var seen = ""
        let handle = output.fileHandleForReading
        while !seen.contains("sent \(sent)\n") {
            let data = handle.readAvailable()
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
            if seen.contains("failed") { break }
        }
        #expect(!seen.contains("failed"), "\(seen)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        // It opens, the file is sound, and each channel holds exactly its messages so far (how
        // far the writer got before the kill varies, and may be nowhere yet).
        let client = ChatServer().persistentClient("alice", deviceId: "probe", file: file)
        #expect(client.store?.failure == nil)
        let channels = await client.cachedChannels()
        #expect(await client.store?.integrityCheck() == "ok")
        for channel in channels {
            let sequences = await client.cachedMessages(in: channel.channelId).map(\.sequence)
            let expected =
                channel.lastSequence == 0 ? [] : Array(max(1, channel.lastSequence - 199)...channel.lastSequence)
            #expect(sequences == expected, "\(channel.channelId): \(sequences) vs lastSequence \(channel.lastSequence)")
        }
        // (The event sequence the file resumes from may be 0: a kill before the writer's first
        // batch with an event in it leaves the one the first connect recorded, and a resume
        // replays from there.)
        await client.closePersistence()
    }
}
