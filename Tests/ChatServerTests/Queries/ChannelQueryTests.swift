import ChatAPI
import ChatServer
import Foundation
import Testing
import TestSupport

@Suite struct ChannelQueryTests {
    @Test func queriesAnswerFromTheViewersPerspective() async throws {
        let (server, _) = try await makeServer()
        let alice = try await connected(server, "alice")
        let bob = try await connected(server, "bob")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "joined", userIds: ["bob"])))
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "open")))
        try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "hidden")))
        try await alice.send(.sendMessage(MessageDraft(channelId: "joined", text: "hi")))

        let mine = try await bob.send(
            .queryChannels(ChannelListQuery(filter: ChannelQueryFilter.userIsMember.filter), after: nil))
        #expect(mine.channelsValue?.items.map(\.channelId) == ["joined"])
        #expect(mine.channelsValue?.items.first?.unreadCount == 1)
        let all = try await bob.send(
            .queryChannels(ChannelListQuery(sort: [Sorting(key: .channelId, isAscending: true)]), after: nil))
        #expect(all.channelsValue?.items.map(\.channelId) == ["joined", "open"])
        let unread = try await bob.send(
            .queryChannels(ChannelListQuery(filter: .equal(.hasUnread, to: true)), after: nil))
        #expect(unread.channelsValue?.items.map(\.channelId) == ["joined"])
        let aliceUnread = try await alice.send(
            .queryChannels(ChannelListQuery(filter: .equal(.hasUnread, to: true)), after: nil))
        #expect(aliceUnread.channelsValue?.items.isEmpty == true)
        let withBob = try await alice.send(
            .queryChannels(ChannelListQuery(filter: .containMembers(userIds: ["bob"])), after: nil))
        #expect(withBob.channelsValue?.items.map(\.channelId) == ["joined"])
    }

    @Test func keysetPagesVisitEveryMatchExactlyOnce() async throws {
        let seed = SeededGenerator.testSeed(0x5EED_0060)
        var random = SeededGenerator(seed: seed)
        let (server, _) = try await makeServer()
        let alice = try await connected(server, "alice")
        for index in 0..<60 {
            let tags = index % 3 == 0 ? ["blue"] : ["red"]
            let metadata: [String: JSON] =
                Bool.random(using: &random) ? ["score": .number(Double(Int.random(in: 0..<5, using: &random)))] : [:]
            try await alice.send(
                .createChannel(ChannelDraft(type: .community, channelId: "c\(index)", tags: tags, metadata: metadata)))
        }
        let query = ChannelListQuery(
            filter: .contains(.tags, value: "red"),
            sort: [Sorting(key: .metadata("score"), isAscending: false)], pageSize: 7)
        var seen: [String] = []
        var cursor: PageCursor?
        repeat {
            let page = try #require(try await alice.send(.queryChannels(query, after: cursor)).channelsValue)
            seen += page.items.map(\.channelId)
            cursor = page.next
            if !page.hasNext { break }
        } while true
        #expect(seen.count == 40, "seed \(seed)")
        #expect(Set(seen).count == seen.count, "seed \(seed)")
        let sorted = try #require(
            try await alice.send(
                .queryChannels(ChannelListQuery(filter: query.filter, sort: query.sort, pageSize: 100), after: nil)
            ).channelsValue)
        #expect(sorted.items.map(\.channelId) == seen, "seed \(seed)")
    }

    @Test func invalidQueriesAreRejected() async throws {
        let (server, _) = try await makeServer()
        let alice = try await connected(server, "alice")
        await #expect(throws: ChatError.self) {
            try await alice.send(.queryChannels(ChannelListQuery(pageSize: 0), after: nil))
        }
        let other = ChannelListQuery(sort: [Sorting(key: .createdAt)]).cursor(
            after: Channel(channelId: "x", type: .community))
        await #expect(throws: ChatError.self) {
            try await alice.send(.queryChannels(ChannelListQuery(), after: other))
        }
    }

    @Test func memberListsFilterAndPage() async throws {
        let (server, clock) = try await makeServer()
        let alice = try await connected(server, "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c")))
        for user in ["bob", "carol"] {
            clock.advance(by: 1)
            try await alice.send(.addMembers(channelId: "c", userIds: [user]))
        }
        try await alice.send(.muteMembers(channelId: "c", userIds: ["carol"], period: 60))
        try await alice.send(.banMembers(channelId: "c", userIds: ["bob"]))
        let all = try await alice.send(.queryMembers(MemberListQuery(channelId: "c", sortBy: .lastCreated), after: nil))
            .memberPageValue
        #expect(all?.items.map(\.userId) == ["carol", "alice"])
        let muted = try await alice.send(.queryMembers(MemberListQuery(channelId: "c", filter: .mute), after: nil))
            .memberPageValue
        #expect(muted?.items.map(\.userId) == ["carol"])
        let banned = try await alice.send(.queryMembers(MemberListQuery(channelId: "c", filter: .ban), after: nil))
            .memberPageValue
        #expect(banned?.items.map(\.userId) == ["bob"])
        let moderators = try await alice.send(
            .queryMembers(MemberListQuery(channelId: "c", roles: ["moderator"]), after: nil)
        ).memberPageValue
        #expect(moderators?.items.map(\.userId) == ["alice"])
    }
}
