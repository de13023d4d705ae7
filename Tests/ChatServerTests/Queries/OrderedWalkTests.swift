import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

@Suite struct OrderedWalkTests {
    private static let users = ["alice", "bob", "carol", "dave"]
    /// Display names with equal folded forms, so ties and the text order are exercised.
    private static let names: [String?] = ["Alpha", "alpha", "Älpha", "Beta", "beta", "gamma", nil]
    private static let tags = ["a", "b", "c"]

    /// Every sort with an index, both directions; and sorts of several criteria whose first
    /// has an index (walked run by run of equal first values), the later ones including a
    /// viewer's field and a metadata path.
    private static let sorts: [[Sorting]] =
        ChannelSortIndexes.indexedKeys.flatMap { key in
            [[Sorting(key: key, isAscending: true)], [Sorting(key: key, isAscending: false)]]
        } + [
            [Sorting(key: .memberCount, isAscending: false), Sorting(key: .displayName, isAscending: true)],
            [Sorting(key: .displayName, isAscending: true), Sorting(key: .lastMessageAt, isAscending: false)],
            [Sorting(key: .memberCount, isAscending: true), Sorting(key: .unreadCount, isAscending: false)],
            [Sorting(key: .lastMessageAt, isAscending: false), Sorting(key: .memberCount, isAscending: true)],
            [
                Sorting(key: .displayName, isAscending: false), Sorting(key: .hasUnread, isAscending: true),
                Sorting(key: .metadata("rank"), isAscending: false),
            ],
        ]

    private static let filters: [Filter] = [
        .all,
        .equal(.type, to: .community),
        .contains(.tags, value: "a"),
        .equal(.joined, to: true),
        .greaterOrEqual(.memberCount, than: 2),
        .and([.equal(.isDeleted, to: false), .in(.type, values: [.live, .private, .conversation])]),
        .or([.contains(.tags, value: "b"), .exists(.lastMessageAt)]),
    ]

    /// Paging through every page of sorted queries with cursors gives what a from-scratch
    /// filter and full sort of the visible channels gives, page for page (items, cursor,
    /// hasNext), through the planner and through the index walk alone, while channels are
    /// created, messaged, renamed, retagged, joined, left, emptied and deleted between pages.
    @Test func indexedPagesEqualAFromScratchFilterAndSort() throws {
        let seed = SeededGenerator.testSeed(0x5EED_0050)
        var random = SeededGenerator(seed: seed)
        var fixture = StateFixture()
        for _ in 0..<60 { Self.randomChange(&fixture, &random, creating: true) }
        for _ in 0..<8 {
            for _ in 0..<40 { Self.randomChange(&fixture, &random, creating: false) }
            Self.expectIndexesMatchTheChannels(fixture.state, seed: seed)
            for sort in Self.sorts {
                let viewer = (Self.users + ["boss", nil]).randomElement(using: &random)!
                let query = ChannelListQuery(
                    filter: Self.filters.randomElement(using: &random)!, sort: sort,
                    pageSize: Int.random(in: 1...7, using: &random))
                try Self.expectEveryPage(of: query, viewer: viewer, &fixture, &random, seed: seed)
            }
        }
    }

    /// Pages through `query` for `viewer`, changing the state between pages now and then.
    private static func expectEveryPage(
        of query: ChannelListQuery, viewer: String?, _ fixture: inout StateFixture, _ random: inout SeededGenerator,
        seed: UInt64
    ) throws {
        let caller: Caller = viewer.map { .user($0) } ?? .console
        var cursor: PageCursor?
        for _ in 0..<200 {
            let state = fixture.state
            let visible = state.channels.values
                .filter { state.canSee($0, caller: caller) }
                .map { state.render($0, for: viewer) }
                .filter { channel in query.filter.matches(channel) { state.channels[channel.channelId]!.isMember($0) } }
            let expected = try query.page(of: visible, after: cursor, limit: query.pageSize)
            let answered = try state.queryChannels(query, after: cursor, by: caller, now: fixture.now)
            let walked = state.walkedPage(query, after: cursor, by: caller, among: nil, budget: .max)
            let context = "seed \(seed), viewer \(viewer ?? "console"), \(query)"
            #expect(answered == expected, "\(context)")
            #expect(walked == expected, "\(context)")
            #expect(answered.items.map(\.version) == expected.items.map(\.version), "\(context)")
            guard expected.hasNext, answered == expected else { return }
            cursor = expected.next
            if Int.random(in: 0..<3, using: &random) == 0 { randomChange(&fixture, &random, creating: false) }
        }
        Issue.record("more than 200 pages: seed \(seed), \(query)")
    }

    /// Every index holds every channel once, in the order of its sort value, then id.
    private static func expectIndexesMatchTheChannels(_ state: ServerState, seed: UInt64) {
        for key in ChannelSortIndexes.indexedKeys {
            let expected = state.channels.values
                .map { (value: key.sortValue(of: $0.info), id: $0.id) }
                .sorted { $0.value != $1.value ? $0.value < $1.value : $0.id < $1.id }
            let entries = state.sortIndexes.index(of: key)?.entries ?? []
            #expect(entries.map(\.id) == expected.map(\.id), "seed \(seed), \(key)")
            #expect(entries.map(\.key) == expected.map(\.value), "seed \(seed), \(key)")
        }
    }

    /// One random change of a channel's sort fields or visibility (or a new channel). Changes
    /// the rules refuse are skipped.
    private static func randomChange(_ fixture: inout StateFixture, _ random: inout SeededGenerator, creating: Bool) {
        fixture.advance(Double(Int.random(in: 0...1, using: &random)))
        let channelIds = Array(fixture.state.channels.keys).sorted()
        let user = users.randomElement(using: &random)!
        let now = fixture.now
        let choice = creating || channelIds.isEmpty ? 0 : Int.random(in: 0..<9, using: &random)
        let channelId = channelIds.randomElement(using: &random) ?? ""
        func state(_ body: (inout ServerState) throws -> Void) { _ = try? body(&fixture.state) }
        switch choice {
        case 0:
            let type = [ChannelType.community, .live, .private, .broadcast, .conversation].randomElement(
                using: &random)!
            var members = users.filter { _ in Bool.random(using: &random) }
            if type == .conversation, members.count < 2 { members = ["alice", "bob"] }
            let draft = ChannelDraft(
                type: type, channelId: "c\(fixture.state.channels.count)", userIds: members,
                displayName: names.randomElement(using: &random)!,
                tags: tags.filter { _ in Bool.random(using: &random) })
            state { _ = try $0.createChannel(draft, by: .console, now: now) }
        case 1, 2:
            let member = fixture.state.channels[channelId]!.members.keys.sorted().randomElement(using: &random) ?? user
            state { _ = try $0.sendMessage("hi", to: channelId, by: member, now: now) }
        case 3:
            let changes = ChannelChanges(
                channelId: channelId, displayName: names.randomElement(using: &random)!,
                tags: Bool.random(using: &random) ? tags.filter { _ in Bool.random(using: &random) } : nil)
            state { try $0.updateChannel(changes, by: .console, now: now) }
        case 4: state { try $0.addMembers([user], to: channelId, by: .console, now: now) }
        case 5: state { try $0.removeMembers([user], from: channelId, by: .console, now: now) }
        case 6: state { try $0.joinChannel(channelId, userId: user, now: now) }
        case 7: state { try $0.leaveChannel(channelId, userId: user, now: now) }
        default:
            // Deletions are rarer: a deleted channel changes no more.
            if Int.random(in: 0..<3, using: &random) == 0 {
                state { try $0.deleteChannel(channelId, by: .console, now: now) }
            }
        }
        _ = fixture.state.drainEmissions()
    }
}
