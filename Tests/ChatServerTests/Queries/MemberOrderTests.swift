import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

/// A large channel's member pages walk its member order (``ChannelRecord/memberOrder``) and
/// give exactly what testing every member gives, whatever joined, left, was banned, muted or
/// given a role.
@Suite struct MemberOrderTests {
    @Test func walkedMemberPagesEqualTestingEveryMember() throws {
        let seed = SeededGenerator.testSeed(0x5EED_0060)
        var random = SeededGenerator(seed: seed)
        var fixture = StateFixture()
        let users = (0..<1_400).map { "user\($0)" }
        for userId in users {
            try fixture.state.registerUser(id: userId, displayName: nil, isAdmin: false, now: fixture.now)
        }
        let channelId = try fixture.create(.community, id: "big", by: "alice")
        for batch in stride(from: 0, to: users.count, by: 100) {
            // Joins in batches at one time: runs of equal join times, told apart by user id.
            try fixture.state.addMembers(
                Array(users[batch..<batch + 100]).shuffled(using: &random), to: channelId, by: .user("alice"),
                now: fixture.now)
            fixture.advance(Double(Int.random(in: 0...2, using: &random)))
        }
        for _ in 0..<300 {
            let user = users.randomElement(using: &random)!
            fixture.advance(1)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: try? fixture.state.leaveChannel(channelId, userId: user, now: fixture.now)
            case 1: try? fixture.state.joinChannel(channelId, userId: user, now: fixture.now)
            case 2: try? fixture.state.banMembers([user], in: channelId, by: .user("alice"), now: fixture.now)
            case 3:
                try? fixture.state.muteMembers([user], period: nil, in: channelId, by: .user("alice"), now: fixture.now)
            case 4:
                try? fixture.state.setRole(
                    "helper", granted: true, for: [user], in: channelId, by: .user("alice"), now: fixture.now)
            default: try? fixture.state.removeMembers([user], from: channelId, by: .user("alice"), now: fixture.now)
            }
        }
        _ = fixture.state.drainEmissions()
        let record = fixture.state.channels[channelId]!
        #expect(record.memberOrder != nil, "a channel of \(record.members.count) members keeps its order")

        // Kept change by change, the order equals one built at once.
        var rebuilt = record
        rebuilt.rebuildMemberOrder()
        #expect(Self.entries(of: record.memberOrder!) == Self.entries(of: rebuilt.memberOrder!))

        let someUsers = Array(users.shuffled(using: &random).prefix(40))
        let queries: [MemberListQuery] = [
            MemberListQuery(channelId: channelId, pageSize: 50),
            MemberListQuery(channelId: channelId, sortBy: .lastCreated, pageSize: 37),
            MemberListQuery(channelId: channelId, filter: .mute, pageSize: 25),
            MemberListQuery(channelId: channelId, roles: ["helper"], pageSize: 10),
            MemberListQuery(channelId: channelId, sortBy: .lastCreated, pageSize: 9, userIds: someUsers),
            MemberListQuery(channelId: channelId, filter: .ban, pageSize: 30),
        ]
        for query in queries {
            let expected = Self.everyMember(matching: query, in: fixture)
            var listed: [ChannelMember] = []
            var cursor: PageCursor?
            for _ in 0..<200 {
                let page = try fixture.state.queryMembers(query, after: cursor, by: .user("alice"), now: fixture.now)
                #expect(page.items.count <= query.pageSize)
                listed += page.items
                guard page.hasNext else { break }
                cursor = page.next
            }
            #expect(listed.map(\.userId) == expected.map(\.userId), "seed \(seed), \(query)")
            #expect(listed == expected, "seed \(seed): the same members, rendered the same")
        }
    }

    @Test func aSmallChannelKeepsNoOrder() throws {
        var fixture = StateFixture()
        let channelId = try fixture.create(.community, id: "small", by: "alice", members: ["bob", "carol"])
        #expect(fixture.state.channels[channelId]!.memberOrder == nil)
    }

    /// Every member (or banned user) matching `query`, rendered and in the query's order.
    private static func everyMember(matching query: MemberListQuery, in fixture: StateFixture) -> [ChannelMember] {
        let record = fixture.state.channels[query.channelId]!
        let ids = query.filter == .ban ? Array(record.bans.keys) : Array(record.members.keys)
        return ids.compactMap { fixture.state.renderMember($0, in: record, now: fixture.now) }
            .filter(query.matches)
            .sorted { query.sortKey(for: $0) < query.sortKey(for: $1) }
    }

    private static func entries(of order: OrderedIndex<SortValue>) -> [String] {
        var entries: [String] = []
        order.forEach(keysAscending: true, after: nil) { entry in
            entries.append("\(entry.key)|\(entry.id)")
            return true
        }
        return entries
    }
}
