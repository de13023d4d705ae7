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
            var metadata: [String: JSON] = [:]
            if Bool.random(using: &random) {
                metadata["team"] = .string(["red", "blue"].randomElement(using: &random)!)
            }
            if Bool.random(using: &random) {
                metadata["level"] = .number(Double(Int.random(in: 1...3, using: &random)))
            }
            if Bool.random(using: &random) {
                metadata["labels"] = .array(
                    ["x", "y", "z"].filter { _ in Bool.random(using: &random) }.map(JSON.string))
            }
            if Bool.random(using: &random) { metadata["nested"] = .object(["team": .string("red")]) }
            if index % 10 == 0 { metadata["rare"] = .bool(true) }
            let draft = ChannelDraft(
                type: type, channelId: "c\(index)", userIds: members,
                tags: tags.filter { _ in Bool.random(using: &random) }, metadata: metadata)
            _ = try fixture.state.createChannel(
                draft, by: type == .broadcast ? .console : .user(creator), now: fixture.now)
        }
        try fixture.state.updateChannel(
            "c1", ChannelChanges(channelId: "", tags: ["z"]), by: .console, now: fixture.now)
        for index in stride(from: 0, to: 120, by: 7) where index % 4 != 3 {
            // Changed, emptied and replaced metadata leave the index as it must.
            let metadata: [String: JSON] =
                index % 2 == 0 ? ["team": .string("red"), "labels": .array([.string("y")])] : [:]
            try fixture.state.updateChannel(
                "c\(index)", ChannelChanges(channelId: "", metadata: metadata), by: .console, now: fixture.now)
        }
        let rare = Filter.equal(.metadata("rare"), to: .bool(true))
        let filters: [Filter] = [
            .equal(.joined, to: true),
            .and([.equal(.type, to: .live), .contains(.tags, value: "a")]),
            .and([.containMembers(userIds: ["bob", "carol"]), .notEqual(.tags, to: "b")]),
            .in(.type, values: [.community, .conversation]),
            .and([.equal(.tags, to: "z")]),
            .or([.contains(.tags, value: "a"), .equal(.type, to: .live)]),
            .and([.equal(.membership, to: .member), .in(.tags, values: ["c", "b"])]),
            .equal(.metadata("team"), to: .string("red")),
            rare,
            .and([.in(.metadata("level"), values: [.number(1), .number(3)]), .equal(.type, to: .community)]),
            .equal(.metadata("labels"), to: .string("y")),
            .equal(.metadata("team"), to: .null),
            .equal(.metadata("nested.team"), to: .string("red")),
            .in(.metadata("team"), values: [.string("blue"), .number(2)]),
        ]
        // The index holds exactly the channels whose top-level value (or array element) it names.
        for (entry, ids) in fixture.state.channelsByMetadata {
            let expected = Set(
                fixture.state.channels.values.filter { record in
                    let value = record.info.metadata[entry.key]
                    return value == entry.value || (value?.arrayValue?.contains(entry.value) ?? false)
                }.map(\.id))
            #expect(ids == expected, "\(entry)")
        }
        let rareIds = Set(fixture.state.channels.values.filter { $0.info.metadata["rare"] == .bool(true) }.map(\.id))
        #expect(rareIds.count == 10)  // 12 set, 2 replaced by updates
        #expect(
            fixture.state.candidateIds(for: rare, viewer: nil) == rareIds, "a selective metadata filter uses the index")
        for viewer in users {
            for filter in filters {
                let query = ChannelListQuery(
                    filter: filter, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 100)
                let answer = try fixture.state.queryChannels(query, after: nil, by: .user(viewer), now: fixture.now)
                let expected = fixture.state.channels.values
                    .filter { fixture.state.canSee($0, caller: .user(viewer)) }
                    .map { fixture.state.render($0, for: viewer) }
                    .filter { channel in
                        filter.matches(channel) { fixture.state.channels[channel.channelId]!.isMember($0) }
                    }
                    .map(\.channelId).sorted()
                #expect(answer.items.map(\.channelId) == expected, "seed \(seed), \(viewer), \(filter)")
            }
        }
    }
}
