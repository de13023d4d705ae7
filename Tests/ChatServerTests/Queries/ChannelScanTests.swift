import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

/// A channel query answered in steps (``ChannelScan``), with the state changing between the
/// steps, gives exactly the page a single hold gives at its end.
@Suite struct ChannelScanTests {
    static let users = ["alice", "bob", "carol", "dave"]

    /// 300 channels of every client-visible kind, with metadata, some messages and members.
    private static func populated(_ random: inout SeededGenerator) throws -> StateFixture {
        var fixture = StateFixture()
        for index in 0..<300 {
            let type = [ChannelType.community, .live, .community, .broadcast][index % 4]
            let creator = users.randomElement(using: &random)!
            let members = users.filter { $0 != creator && Bool.random(using: &random) }
            let draft = ChannelDraft(
                type: type, channelId: "c\(index)", userIds: members,
                displayName: "Room \(Int.random(in: 0..<50, using: &random))",
                metadata: [
                    "score": .number(Double(Int.random(in: 0..<20, using: &random))),
                    "team": .string(["red", "blue"].randomElement(using: &random)!),
                ])
            _ = try fixture.state.createChannel(
                draft, by: type == .broadcast ? .console : .user(creator), now: fixture.now)
        }
        _ = fixture.state.drainEmissions()
        return fixture
    }

    private static let queries: [ChannelListQuery] = [
        // A sort by a metadata path: no index, always scanned.
        ChannelListQuery(filter: .all, sort: [Sorting(key: .metadata("score"), isAscending: false)], pageSize: 7),
        ChannelListQuery(
            filter: .equal(.metadata("team"), to: .string("red")),
            sort: [Sorting(key: .metadata("score"), isAscending: true)], pageSize: 5),
        // A range no index answers, sorted by an indexed key that rarely matches early.
        ChannelListQuery(
            filter: .and([.greater(.metadata("score"), than: 17), .containMembers(userIds: ["carol"])]),
            sort: [Sorting(key: .displayName, isAscending: true)], pageSize: 4),
        ChannelListQuery(
            filter: .containMembers(userIds: ["alice"]), sort: [Sorting(key: .unreadCount, isAscending: false)],
            pageSize: 6),
    ]

    /// Changes the state as clients do between two steps of a scan.
    private static func change(_ fixture: inout StateFixture, _ random: inout SeededGenerator, created: inout Int) {
        let id = "c\(Int.random(in: 0..<(300 + created), using: &random))"
        let user = users.randomElement(using: &random)!
        fixture.advance(1)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            let changes = ChannelChanges(
                channelId: id,
                metadata: ["score": .number(Double(Int.random(in: 0..<20, using: &random))), "team": .string("red")])
            _ = try? fixture.state.updateChannel(changes, by: .console, now: fixture.now)
        case 1:
            _ = try? fixture.state.updateChannel(
                ChannelChanges(channelId: id, displayName: "Room \(Int.random(in: 0..<50, using: &random))"),
                by: .console, now: fixture.now)
        case 2:
            try? fixture.state.joinChannel(id, userId: user, now: fixture.now)
        case 3:
            try? fixture.state.leaveChannel(id, userId: user, now: fixture.now)
        case 4:
            _ = try? fixture.state.sendMessage(MessageDraft(channelId: id, text: "hi"), by: user, now: fixture.now)
        case 5:
            created += 1
            let draft = ChannelDraft(
                type: .community, channelId: "c\(300 + created - 1)", userIds: [],
                metadata: ["score": .number(Double(Int.random(in: 0..<20, using: &random))), "team": .string("blue")])
            _ = try? fixture.state.createChannel(draft, by: .user(user), now: fixture.now)
        default:
            try? fixture.state.markRead(id, upTo: nil, userId: user, now: fixture.now)
        }
        _ = fixture.state.drainEmissions()
    }

    @Test func steppedScansEqualASingleHoldWhateverChangesBetweenSteps() throws {
        let seed = SeededGenerator.testSeed(0x5EED_0050)
        var scanned = 0
        var fellBack = 0
        for run in 0..<5 {
            var random = SeededGenerator(seed: seed &+ UInt64(run))
            var fixture = try Self.populated(&random)
            var created = 0
            for query in Self.queries {
                let viewer = Self.users.randomElement(using: &random)!
                var cursor: PageCursor?
                for _ in 0..<12 {  // page on (bounded)
                    let plan = try fixture.state.planChannelQuery(
                        query, after: cursor, by: .user(viewer), now: fixture.now, step: 8)
                    let page: Page<Channel>
                    switch plan {
                    case .answered(let answered):
                        page = answered
                    case .scanning(var scan):
                        scanned += 1
                        while !scan.isComplete {
                            scan.step(in: fixture.state, limit: 8)
                            for _ in 0..<Int.random(in: 0...2, using: &random) {
                                Self.change(&fixture, &random, created: &created)
                            }
                        }
                        if let finished = scan.finish(in: fixture.state) {
                            page = finished
                        } else {
                            // The engine answers in one hold then.
                            fellBack += 1
                            page = try fixture.state.queryChannels(
                                query, after: cursor, by: .user(viewer), now: fixture.now)
                        }
                    }
                    let reference = try fixture.state.queryChannels(
                        query, after: cursor, by: .user(viewer), now: fixture.now)
                    guard page.items.map(\.channelId) == reference.items.map(\.channelId),
                        page.hasNext == reference.hasNext,
                        page.items == reference.items
                    else {
                        Issue.record(
                            "seed \(seed &+ UInt64(run)), \(query.sort): stepped \(page.items.map(\.channelId)) (more: \(page.hasNext)) ≠ one hold \(reference.items.map(\.channelId)) (more: \(reference.hasNext))"
                        )
                        return
                    }
                    guard page.hasNext else { break }
                    cursor = page.next
                }
            }
        }
        #expect(scanned > 40, "the queries were answered in steps")
        #expect(fellBack * 10 < scanned, "a fallback to one hold is rare: \(fellBack) of \(scanned)")
    }

    @Test func aChangeLogThatNoLongerReachesBackSaysSo() {
        var log = ChannelChangeLog(capacity: 3)
        for revision in 1...5 { log.record("c\(revision)", at: revision) }
        #expect(log.channels(changedAfter: 1) == nil, "revision 2 was dropped")
        #expect(log.channels(changedAfter: 2) == ["c3", "c4", "c5"])
        #expect(log.channels(changedAfter: 4) == ["c5"])
        #expect(log.channels(changedAfter: 5) == [])
        for revision in 6...20 { log.record("c\(revision % 4)", at: revision) }
        #expect(log.channels(changedAfter: 17) == ["c2", "c3", "c0"])
    }

    @Test func aSelectionStaysExactWhileItsSpareCoversWithdrawals() {
        let query = ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 3)
        var selection = PageSelection(ordering: query, size: 3, spare: 2)
        for index in 0..<10 { selection.offer(Channel(channelId: "c\(index)", type: .community)) }
        #expect(selection.remove { ["c0", "c1"].contains($0.channelId) } == 2)
        #expect(selection.isExact)
        #expect(selection.page(after: nil).items.map(\.channelId) == ["c2", "c3", "c4"])
        #expect(selection.remove { $0.channelId == "c2" } == 1)
        #expect(!selection.isExact, "c5 was turned away: the page might miss it")
    }
}
