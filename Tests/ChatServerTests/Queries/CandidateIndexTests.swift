import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

@Suite struct CandidateIndexTests {
    /// Index-narrowed queries answer exactly what evaluating the filter on every visible
    /// channel answers, for indexed, partly indexed and unindexed filters.
    @Test func indexesNarrowTheScanWithoutChangingTheAnswer() throws {
        let seed = SeededGenerator.testSeed(0x5EED_0030)
        var random = SeededGenerator(seed: seed)
        var fixture = StateFixture()
        let users = ["alice", "bob", "carol", "dave"]
        let tags = ["a", "b", "c"]
        for index in 0..<120 {
            let type = [ChannelType.community, .live, .broadcast, .conversation][index % 4]
            let creator = users.randomElement(using: &random)!
            var members = users.filter { _ in Bool.random(using: &random) }.filter { $0 != creator }
            if type == .conversation, members.isEmpty { members = [creator == "alice" ? "bob" : "alice"] }
            let draft = ChannelDraft(
                type: type, channelId: "c\(index)", userIds: members,
                tags: tags.filter { _ in Bool.random(using: &random) })
            _ = try fixture.state.createChannel(draft, by: type == .broadcast ? .console : .user(creator), now: fixture.now)
        }
        try fixture.state.updateChannel("c1", ChannelChanges(channelId: "", tags: ["z"]), by: .console, now: fixture.now)
        let filters: [Filter] = [
            .equal(.joined, to: true),
            .and([.equal(.type, to: .live), .contains(.tags, value: "a")]),
            .and([.containMembers(userIds: ["bob", "carol"]), .notEqual(.tags, to: "b")]),
            .in(.type, values: [.community, .conversation]),
            .and([.equal(.tags, to: "z")]),
            .or([.contains(.tags, value: "a"), .equal(.type, to: .live)]),
            .and([.equal(.membership, to: .member), .in(.tags, values: ["c", "b"])]),
        ]
        for viewer in users {
            for filter in filters {
                let query = ChannelListQuery(filter: filter, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 100)
                let answer = try fixture.state.queryChannels(query, after: nil, by: .user(viewer), now: fixture.now)
                let expected = fixture.state.channels.values
                    .filter { fixture.state.canSee($0, caller: .user(viewer)) }
                    .map { fixture.state.render($0, for: viewer) }
                    .filter { channel in filter.matches(channel) { fixture.state.channels[channel.channelId]!.isMember($0) } }
                    .map(\.channelId).sorted()
                #expect(answer.items.map(\.channelId) == expected, "seed \(seed), \(viewer), \(filter)")
            }
        }
    }
}
