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

    /// Posts events 1...`total` from 4 concurrent posters that take turns under one lock (as
    /// the server does) and run the wakes after releasing it, with bursts and pauses mixed at
    /// random.
    static func postConcurrently(_ total: Int, to mailbox: EventMailbox, using random: inout SeededGenerator) async {
        let posters = 4
        let plans = (0..<posters).map { _ in
            (0..<(total / posters)).map { _ in Int.random(in: 0..<20, using: &random) == 0 }
        }
        let turn = Shared(0)
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
    }

    /// Posters take turns under one lock (as the server does), run the wakes after releasing
    /// it, and the reader gets every event once, in the order posted, with bursts and pauses
    /// mixed at random.
    @Test(.timeLimit(.minutes(1))) func concurrentPostersAndOneReaderLoseNothingAndKeepOrder() async throws {
        let seed = SeededGenerator.testSeed(0x6D61_696C)
        var random = SeededGenerator(seed: seed)
        let mailbox = EventMailbox(limit: nil)
        let total = 20_000
        let reader = Task {
            var received: [Int] = []
            while received.count < total, let item = await mailbox.next() {
                received.append(Self.sequence(of: item) ?? -1)
            }
            return received
        }
        await Self.postConcurrently(total, to: mailbox, using: &random)
        let received = await reader.value
        #expect(received == Array(1...total), "seed \(seed)")
    }
}

/// Reading on demand (`readOnDemand`, what `WireSession` does): no task waits between bursts;
/// a doorbell rings once per burst and `take()` arms it again when it finds nothing.
@Suite struct EventMailboxOnDemandTests {
    typealias Mailbox = EventMailboxTests

    static func sequence(of take: EventMailbox.Take) -> Int? {
        guard case .event(let item) = take else { return nil }
        return Mailbox.sequence(of: item)
    }

    @Test func theDoorbellRingsOncePerBurstAndAgainOnlyAfterTakeFoundNothing() {
        let mailbox = EventMailbox(limit: nil)
        let rings = Shared(0)
        #expect(mailbox.readOnDemand { rings.value.withLock { $0 += 1 } } == nil, "nothing was buffered")
        let first = mailbox.post(Mailbox.event(1)).wake
        #expect(mailbox.post(Mailbox.event(2)).wake == nil, "the doorbell rings once per burst")
        #expect(rings.value.withLock { $0 } == 0, "the post hands the ring back; it does not ring under the lock")
        first?.run()
        #expect(rings.value.withLock { $0 } == 1)
        #expect(Self.sequence(of: mailbox.take()) == 1)
        // A post during the burst does not ring: the reader is still taking.
        #expect(mailbox.post(Mailbox.event(3)).wake == nil)
        #expect(Self.sequence(of: mailbox.take()) == 2)
        #expect(Self.sequence(of: mailbox.take()) == 3)
        guard case .empty = mailbox.take() else {
            Issue.record("an empty mailbox did not answer empty")
            return
        }
        // Armed again by that empty take: the next post rings.
        mailbox.post(Mailbox.event(4)).wake?.run()
        #expect(rings.value.withLock { $0 } == 2)
        #expect(Self.sequence(of: mailbox.take()) == 4)
    }

    @Test func eventsBufferedBeforeTheReaderStartsRingAtOnce() {
        let mailbox = EventMailbox(limit: nil)
        _ = mailbox.post(Mailbox.event(1))
        let rings = Shared(0)
        let wake = mailbox.readOnDemand { rings.value.withLock { $0 += 1 } }
        wake?.run()
        #expect(rings.value.withLock { $0 } == 1, "an event already buffered was not announced")
        #expect(Self.sequence(of: mailbox.take()) == 1)
    }

    @Test func finishingRingsAndTheReaderThenTakesTheRestAndTheEnd() {
        let mailbox = EventMailbox(limit: nil)
        let rings = Shared(0)
        _ = mailbox.readOnDemand { rings.value.withLock { $0 += 1 } }
        mailbox.post(Mailbox.event(1)).wake?.run()
        #expect(Self.sequence(of: mailbox.take()) == 1)
        guard case .empty = mailbox.take() else { return #expect(Bool(false), "not empty") }
        mailbox.finish()?.run()
        #expect(rings.value.withLock { $0 } == 2, "the finish of an idle reader was not announced")
        guard case .end = mailbox.take() else { return #expect(Bool(false), "no end after the finish") }
    }

    @Test func cancellingStopsTheReadingForGood() {
        let mailbox = EventMailbox(limit: nil)
        let rings = Shared(0)
        _ = mailbox.readOnDemand { rings.value.withLock { $0 += 1 } }
        _ = mailbox.post(Mailbox.event(1))
        mailbox.cancel()
        guard case .end = mailbox.take() else { return #expect(Bool(false), "a cancelled reader took an event") }
        guard case .dropped = mailbox.post(Mailbox.event(2)).posting else {
            return #expect(Bool(false), "a cancelled mailbox took an event")
        }
        #expect(mailbox.finish() == nil, "a cancelled reader's doorbell rang")
    }

    /// The same race as `concurrentPostersAndOneReaderLoseNothingAndKeepOrder`, read on demand
    /// the way `WireSession` does (a task per ring, taking until empty): every event arrives
    /// once, in order, and two bursts never run at once.
    @Test(.timeLimit(.minutes(1))) func concurrentPostersAndBurstsLoseNothingKeepOrderAndNeverOverlap() async throws {
        let seed = SeededGenerator.testSeed(0x6465_6D64)
        var random = SeededGenerator(seed: seed)
        let mailbox = EventMailbox(limit: nil)
        let total = 20_000
        let reading = Shared((received: [Int](), bursts: 0, running: 0, overlapped: false))
        let (finished, done) = AsyncStream.makeStream(of: Void.self)
        // Each event's handling is marked running while it lasts: two bursts handling events
        // at once would be seen. (A burst's end, after its `.empty`, handles nothing.)
        let drain: @Sendable () -> Void = {
            reading.value.withLock { $0.bursts += 1 }
            while case .event(let item) = mailbox.take() {
                reading.value.withLock { reading in
                    reading.running += 1
                    if reading.running > 1 { reading.overlapped = true }
                }
                let count = reading.value.withLock { reading in
                    reading.running -= 1
                    reading.received.append(Mailbox.sequence(of: item) ?? -1)
                    return reading.received.count
                }
                if count == total { done.yield() }
            }
        }
        _ = mailbox.readOnDemand { Task { drain() } }
        await Mailbox.postConcurrently(total, to: mailbox, using: &random)
        for await _ in finished { break }
        let result = reading.value.withLock { $0 }
        #expect(result.received == Array(1...total), "seed \(seed)")
        #expect(!result.overlapped, "two bursts ran at once, seed \(seed)")
        #expect(result.bursts >= 1)
    }
}

/// A value under a lock that closures can share (`Lock` itself cannot be copied into them).
private final class Shared<Value: Sendable>: Sendable {
    let value: Lock<Value>

    init(_ value: Value) { self.value = Lock(value) }
}
