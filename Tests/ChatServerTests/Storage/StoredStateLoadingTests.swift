import ChatAPI
import Foundation
import Locking
import RowCoding
import SQLiteSupport
import Testing

@testable import ChatServer

/// A stored state never stops the server: values an older version accepted (a mute of 1e11 s,
/// which armed a wake-up that trapped at every start) load and work; a record that cannot be
/// loaded makes the server refuse to start, naming the file and the record, with the file left
/// as it was.
@Suite(.timeLimit(.minutes(1))) struct StoredStateLoadingTests {
    /// A store with channel "c" (alice moderates, bob is a member), closed.
    private func makeStore(in directory: StoreDirectory) async throws {
        let server = try ChatServer(storage: .sqlite(directory.file))
        _ = try await server.registerUser(id: "bob")
        var alice = TestDevice(server, "alice")
        _ = try await alice.connect()
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        _ = try await alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: 60))
        await server.close()
    }

    /// Rewrites the moderation state of channel `channelId` in the file.
    private func rewriteExtras(of channelId: String, in file: URL, _ change: (inout ChannelExtras) -> Void) throws {
        let connection = try SQLiteConnection(path: file.path)
        var extras: ChannelExtras?
        try connection.statement("SELECT extras FROM channels WHERE id = ?1").query([channelId]) { row in
            extras = try row.withBlob(at: 0) { try ChannelExtras.decodeRow($0) }
        }
        change(&extras!)
        var writer = RowWriter()
        try extras!.encodeRow(to: &writer)
        try connection.statement("UPDATE channels SET extras = ?1 WHERE id = ?2").run([writer.bytes, channelId])
    }

    @Test func mutesOfOlderVersionsBeyondTodaysLimitsLoadAndTheServerRuns() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        // What the request left in the file before periods had a maximum.
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.mutedUntil = Date(timeIntervalSinceNow: 1e11)
            extras.mutes["bob"] = Date(timeIntervalSinceNow: 99_999_999_999)
            extras.rateLimit = RateLimitPolicy(limit: 3, window: 10, until: Date(timeIntervalSinceNow: 1e15))
        }
        for _ in 0..<2 {  // a restart, and another from what the first one wrote
            // Time flows by itself: the server arms its wake-up at the nearest stored deadline.
            let clock = SleepWatchingClock()
            let server = try ChatServer(clock: clock, storage: .sqlite(directory.file))
            #expect(server.members(channelId: "c").first { $0.userId == "bob" }?.mutedUntil != nil)
            var alice = TestDevice(server, "alice")
            _ = try await alice.connect()
            _ = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "moderators may send")))
            // The wake-up's task sleeps towards a deadline decades away, and the server goes on.
            await clock.sleepStarted(forAtLeast: 1e9)
            _ = try await alice.send(.getChannel(channelId: "c"))
            await server.close()
        }
    }

    /// The system clock, telling a test when a sleep starts (the server's wake-up task).
    final class SleepWatchingClock: ServerClock {
        private let sleeps = Lock<
            (deadlines: [Date], waiters: [(seconds: TimeInterval, CheckedContinuation<Void, Never>)])
        >(
            ([], []))
        private let system = SystemClock()

        var now: Date { system.now }
        var needsWakeUps: Bool { true }
        func onAdvance(_ handler: @escaping @Sendable () -> Void) {}

        func sleep(until deadline: Date) async throws {
            let seconds = deadline.timeIntervalSince(now)
            let ready = sleeps.withLock { sleeps -> [CheckedContinuation<Void, Never>] in
                sleeps.deadlines.append(deadline)
                let (met, waiting) = (
                    sleeps.waiters.filter { seconds >= $0.seconds }, sleeps.waiters.filter { seconds < $0.seconds }
                )
                sleeps.waiters = waiting
                return met.map(\.1)
            }
            for waiter in ready { waiter.resume() }
            try await system.sleep(until: deadline)
        }

        /// Returns once a sleep has started towards a deadline at least `seconds` away.
        func sleepStarted(forAtLeast seconds: TimeInterval) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let started = sleeps.withLock { sleeps -> Bool in
                    let now = system.now
                    if sleeps.deadlines.contains(where: { $0.timeIntervalSince(now) >= seconds }) { return true }
                    sleeps.waiters.append((seconds, continuation))
                    return false
                }
                if started { continuation.resume() }
            }
        }
    }

    @Test func aRecordThatCannotBeLoadedIsNamedAndTheFileLeftAsItWas() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        // A rate limit no version accepts (a limit of 0 messages).
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.rateLimit = RateLimitPolicy(limit: 0, window: 10, until: .distantFuture)
        }
        let before = try Data(contentsOf: directory.file)
        let error = await thrownChatError { _ = try ChatServer(storage: .sqlite(directory.file)) }
        let message = error.map { "\($0)" } ?? ""
        #expect(error?.kind == "unavailable")
        #expect(message.contains(directory.file.path), "\(message)")
        #expect(message.contains("channel 'c'"), "\(message)")
        #expect(try Data(contentsOf: directory.file) == before)
    }

    @Test func aDateThatIsNotFiniteIsRefusedNamingItsRecord() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.mutes["bob"] = Date(timeIntervalSinceReferenceDate: .infinity)
        }
        let error = await thrownChatError { _ = try ChatServer(storage: .sqlite(directory.file)) }
        #expect(error?.kind == "unavailable")
        #expect(error.map { "\($0)" }?.contains("the moderation state of channel 'c'") == true)
    }
}
