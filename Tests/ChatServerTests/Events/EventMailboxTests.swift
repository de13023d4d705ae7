import ChatAPI
import Foundation
import Locking
import Testing
import TestSupport

@testable import ChatServer

@Suite struct EventMailboxTests {
    static func event(_ sequence: Int) -> ConnectionEvent {
        .event(EventEnvelope(sequence: sequence, event: .typingStarted(channelId: "c", userId: "u\(sequence)")))
    }

    static func sequence(of item: ConnectionEvent?) -> Int? {
        guard case .event(let envelope)? = item else { return nil }
        return envelope.sequence
    }

    @Test func eventsComeOutInOrderThenTheEndAfterFinish() async {
        let mailbox = EventMailbox(limit: nil)
        for sequence in 1...5 {
            let (posting, wake) = mailbox.post(Self.event(sequence))
            guard case .enqueued(remaining: nil) = posting else {
                Issue.record("an unlimited mailbox refused or counted: \(posting)")
                return
            }
            #expect(wake == nil, "nobody was waiting")
        }
        #expect(mailbox.finish() == nil)
        // Buffered events still come after the finish; then the end, for good.
        var received: [Int] = []
        while let item = await mailbox.next() { received.append(Self.sequence(of: item) ?? -1) }
        #expect(received == [1, 2, 3, 4, 5])
        #expect(await mailbox.next() == nil)
        guard case .dropped = mailbox.post(Self.event(6)).posting else {
            Issue.record("a finished mailbox took an event")
            return
        }
    }

    @Test func aLimitedMailboxSaysWhatRemainsAndDropsPastTheLimit() {
        let mailbox = EventMailbox(limit: 3)
        var remaining: [Int?] = []
        for sequence in 1...3 {
            guard case .enqueued(let left) = mailbox.post(Self.event(sequence)).posting else {
                Issue.record("event \(sequence) was dropped below the limit")
                return
            }
            remaining.append(left)
        }
        #expect(remaining == [2, 1, 0])
        guard case .dropped = mailbox.post(Self.event(4)).posting else {
            Issue.record("an event past the limit was buffered")
            return
        }
    }

    /// Returns once `mailbox`'s reader is parked, waiting for an event (bounded in scheduler
    /// turns).
    static func waitUntilParked(_ mailbox: EventMailbox) async throws {
        var turns = 0
        while !mailbox.hasParkedReader {
            turns += 1
            try #require(turns < 10_000_000, "the reader never parked")
            await Task.yield()
        }
    }

    /// A parked reader is not woken by the post itself: the poster hands back the wake (the
    /// server runs it after releasing its lock), and the reader finds the event then.
    @Test(.timeLimit(.minutes(1))) func aParkedReaderIsWokenByTheWakeThePostHandsBack() async throws {
        let mailbox = EventMailbox(limit: nil)
        let reader = Task { await mailbox.next() }
        try await Self.waitUntilParked(mailbox)
        let wake = try #require(mailbox.post(Self.event(1)).wake, "the post did not hand back the parked reader")
        #expect(mailbox.post(Self.event(2)).wake == nil, "one wake per parked reader")
        wake.run()
        #expect(Self.sequence(of: await reader.value) == 1)
        #expect(Self.sequence(of: await mailbox.next()) == 2)
    }

    @Test(.timeLimit(.minutes(1))) func finishingWakesAParkedReaderWithTheEnd() async throws {
        let mailbox = EventMailbox(limit: nil)
        let reader = Task { await mailbox.next() }
        try await Self.waitUntilParked(mailbox)
        let wake = try #require(mailbox.finish())
        wake.run()
        #expect(await reader.value == nil)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledReaderEndsTheMailboxForGood() async {
        let mailbox = EventMailbox(limit: nil)
        let reader = Task { await mailbox.next() }
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(await mailbox.next() == nil)
        guard case .dropped = mailbox.post(Self.event(1)).posting else {
            Issue.record("a cancelled mailbox took an event")
            return
        }
    }

    @Test(.timeLimit(.minutes(1))) func theStreamMadeFromItEndsWhenItsReaderIsCancelled() async throws {
        let mailbox = EventMailbox(limit: nil)
        let stream = mailbox.makeStream()
        _ = mailbox.post(Self.event(1))
        let reader = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        try await Self.waitUntilParked(mailbox)
        reader.cancel()
        #expect(await reader.value == 1)
    }

    /// Posters take turns under one lock (as the server does), run the wakes after releasing
    /// it, and the reader gets every event once, in the order posted, with bursts and pauses
    /// mixed at random.
    @Test(.timeLimit(.minutes(1))) func concurrentPostersAndOneReaderLoseNothingAndKeepOrder() async throws {
        let seed = SeededGenerator.testSeed(0x6D61_696C)
        var random = SeededGenerator(seed: seed)
        let mailbox = EventMailbox(limit: nil)
        let turn = Counter()
        let total = 20_000
        let posters = 4
        let plans = (0..<posters).map { _ in
            (0..<(total / posters)).map { _ in Int.random(in: 0..<20, using: &random) == 0 }
        }
        let reader = Task {
            var received: [Int] = []
            while received.count < total, let item = await mailbox.next() {
                received.append(Self.sequence(of: item) ?? -1)
            }
            return received
        }
        await withTaskGroup(of: Void.self) { group in
            for plan in plans {
                group.addTask {
                    for pause in plan {
                        let wake = turn.value.withLock { next -> EventMailbox.Wake? in
                            next += 1
                            return mailbox.post(Self.event(next)).wake
                        }
                        wake?.run()
                        if pause { await Task.yield() }
                    }
                }
            }
        }
        let received = await reader.value
        #expect(received == Array(1...total), "seed \(seed)")
    }
}

/// The posters' shared turn: the last number posted, under a lock (the server's lock's stand-in).
private final class Counter: Sendable {
    let value = Lock(0)
}
