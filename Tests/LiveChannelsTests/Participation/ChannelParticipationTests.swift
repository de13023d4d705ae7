import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChannelParticipationTests {
    let fixture = ChatFixture()

    @Test func memberListAutoLinksAsMembersJoinLeaveAndAreBanned() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let carol = try await fixture.client("carol")
        try await makeClub("club", by: alice)
        let participation = ChannelParticipation(client: alice, andChannel: "club")
        let members = await participation.getMembers(filter: .all, sortBy: .firstCreated, roles: []).loaded()
        let newestFirst = await participation.getMembers(filter: .all, sortBy: .lastCreated, roles: []).loaded()
        let banned = await participation.getMembers(filter: .ban).loaded()
        #expect(members.snapshots.map(\.userId) == ["alice"])
        #expect(members.dataStatus == .fresh)
        #expect(banned.snapshots.isEmpty)

        _ = try await ChannelRepository(client: bob).joinChannel(channelId: "club")
        _ = try await ChannelRepository(client: carol).joinChannel(channelId: "club")
        await alice.synchronize()
        #expect(members.snapshots.map(\.userId) == ["alice", "bob", "carol"])
        #expect(newestFirst.snapshots.map(\.userId) == ["carol", "bob", "alice"])

        try await ChannelRepository(client: bob).leaveChannel("club")
        await alice.synchronize()
        #expect(members.snapshots.map(\.userId) == ["alice", "carol"])

        // The moderator's own call: visible in every list when it returns, no synchronize.
        let records = try await ChannelModeration(client: alice, channelId: "club").banMembers(["carol"])
        #expect(records.map(\.membership) == [.banned])
        #expect(members.snapshots.map(\.userId) == ["alice"])
        #expect(newestFirst.snapshots.map(\.userId) == ["alice"])
        #expect(banned.snapshots.map(\.userId) == ["carol"])
        #expect(banned.snapshots.first?.membership == .banned)

        try await ChannelModeration(client: alice, channelId: "club").unbanMembers(["carol"])
        #expect(banned.snapshots.isEmpty)
        #expect(members.snapshots.map(\.userId) == ["alice"])
        _ = try await ChannelRepository(client: carol).joinChannel(channelId: "club")
        await alice.synchronize()
        #expect(members.snapshots.map(\.userId) == ["alice", "carol"])
    }

    @Test func muteAndRoleFiltersFollowModeration() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.registerUser(id: "carol")
        try await makeClub("club", by: alice, members: ["bob", "carol"])
        let moderation = ChannelModeration(client: alice, channelId: "club")
        // Bob, a plain member, watches; his lists move through events.
        let bobSide = ChannelParticipation(client: bob, channelId: "club")
        let muted = await bobSide.getMembers(filter: .mute).loaded()
        let moderators = await bobSide.getMembers(filter: .all, sortBy: .firstCreated, roles: ["moderator"]).loaded()
        let vips = await bobSide.getMembers(roles: ["vip", "moderator"]).loaded()
        #expect(muted.snapshots.isEmpty)
        #expect(moderators.snapshots.map(\.userId) == ["alice"])

        try await moderation.muteMembers(["carol"], mutePeriod: 600)
        await bob.synchronize()
        #expect(muted.snapshots.map(\.userId) == ["carol"])
        #expect(muted.snapshots.first?.isMuted == true)
        try await moderation.unmuteMembers(["carol"])
        await bob.synchronize()
        #expect(muted.snapshots.isEmpty)

        try await moderation.addRole("moderator", userIds: ["bob"])
        try await moderation.addRole("vip", userIds: ["carol"])
        await bob.synchronize()
        #expect(Set(moderators.snapshots.map(\.userId)) == ["alice", "bob"])
        #expect(Set(vips.snapshots.map(\.userId)) == ["alice", "bob", "carol"])
        try await moderation.removeRole("moderator", userIds: ["bob"])
        await bob.synchronize()
        #expect(moderators.snapshots.map(\.userId) == ["alice"])
        #expect(vips.snapshots.first { $0.userId == "bob" } == nil)
    }

    @Test func sortOrdersAreOppositeAndMatchTheServer() async throws {
        let alice = try await fixture.client("alice")
        let users = (0..<8).map { "user\($0)" }
        for user in users { try await fixture.server.registerUser(id: user) }
        try await makeClub("club", by: alice)
        let participation = ChannelParticipation(client: alice, channelId: "club")
        var random = SeededGenerator(seed: 0x5AFF1E)
        for user in users.shuffled(using: &random) { try await participation.addMembers([user]) }
        let oldest = await participation.getMembers(sortBy: .firstCreated).loaded()
        let newest = await participation.getMembers(sortBy: .lastCreated).loaded()
        #expect(oldest.count == 9)
        #expect(oldest.snapshots.map(\.userId) == newest.snapshots.reversed().map(\.userId))
        let joined = oldest.snapshots.map(\.joinedAt)
        #expect(joined == joined.sorted())
        let server = try await alice.transport.send(
            .queryMembers(MemberListQuery(channelId: "club", sortBy: .lastCreated), after: nil))
        #expect(server.memberPageValue?.items.map(\.userId) == newest.snapshots.map(\.userId))
    }

    /// Paging through 40 members with pages of 5 while members join and leave: every member
    /// that stays is seen exactly once, and the list ends equal to the server's answer.
    @Test func paginationWhileMembersComeAndGo() async throws {
        let alice = try await fixture.client("alice")
        let users = (0..<40).map { String(format: "m%02d", $0) }
        for user in users + ["late1", "late2", "late3"] { try await fixture.server.registerUser(id: user) }
        try await makeClub("club", by: alice)
        let participation = ChannelParticipation(client: alice, channelId: "club")
        for user in users { try await participation.addMembers([user]) }
        let list = await participation.getMembers(filter: .all, sortBy: .firstCreated, roles: [], pageSize: 5).loaded()
        #expect(list.count == 5, "\(list.snapshots.map(\.userId))")
        #expect(list.hasNext)
        var generator = SeededGenerator(seed: 7)
        var removed: Set<String> = []
        var pages = 1
        while list.hasNext {
            let snapshot = list.snapshots.map(\.userId)
            #expect(Set(snapshot).count == snapshot.count, "duplicates in \(snapshot)")
            if let victim = users.filter({ !removed.contains($0) }).randomElement(using: &generator) {
                try await participation.removeMembers([victim])
                removed.insert(victim)
                #expect(!list.snapshots.contains { $0.userId == victim })
            }
            list.nextPage()
            await list.loaded()
            pages += 1
        }
        try await participation.addMembers(["late1", "late2", "late3"])
        #expect(pages > 3)
        let expected = ["alice"] + users.filter { !removed.contains($0) } + ["late1", "late2", "late3"]
        #expect(list.snapshots.map(\.userId) == expected)
        let query = MemberListQuery(channelId: "club", pageSize: 100)
        let server = try await alice.transport.send(.queryMembers(query, after: nil)).memberPageValue?.items
        #expect(server?.map(\.userId) == expected)
    }

    @Test func addAndRemoveMembersAsyncAndWithCompletion() async throws {
        let alice = try await fixture.client("alice")
        for user in ["bob", "carol", "dave"] { try await fixture.server.registerUser(id: user) }
        try await makeClub("club", by: alice)
        let participation = ChannelParticipation(client: alice, channelId: "club")
        let members = await participation.getMembers().loaded()
        let channel = await ChannelRepository(client: alice).getChannel("club").loaded()

        let added = try await participation.addMembers(["bob", "carol"])
        #expect(added.map(\.userId) == ["bob", "carol"])
        #expect(added.allSatisfy { $0.membership == .member })
        #expect(members.snapshots.map(\.userId) == ["alice", "bob", "carol"])
        #expect(channel.snapshot?.memberCount == 3)

        let (addedOK, addError) = await withCheckedContinuation { continuation in
            participation.addMembers(["dave"]) { ok, error in continuation.resume(returning: (ok, error)) }
        }
        #expect(addedOK && addError == nil)
        #expect(members.snapshots.map(\.userId) == ["alice", "bob", "carol", "dave"])

        let removed = try await participation.removeMembers(["bob"])
        #expect(removed.map(\.membership) == [.none])
        #expect(members.snapshots.map(\.userId) == ["alice", "carol", "dave"])
        #expect(channel.snapshot?.memberCount == 3)

        let (removedOK, removeError) = await withCheckedContinuation { continuation in
            participation.removeMembers(["carol"]) { ok, error in continuation.resume(returning: (ok, error)) }
        }
        #expect(removedOK && removeError == nil)
        #expect(members.snapshots.map(\.userId) == ["alice", "dave"])
        #expect(channel.snapshot?.memberCount == 2)

        // Failures reach the completion and change nothing.
        let (failedOK, failure) = await withCheckedContinuation { continuation in
            participation.addMembers(["nobody-registered"]) { ok, error in continuation.resume(returning: (ok, error)) }
        }
        #expect(!failedOK)
        #expect((failure as? ChatError)?.cause == "invalidArgument")
        participation.addMembers(["dave"], completion: nil)
        participation.removeMembers(["nobody"], completion: nil)
        #expect(members.snapshots.map(\.userId) == ["alice", "dave"])
    }

    @Test func addedMemberSeesTheChannelAndOthersSeeTheMember() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let carol = try await fixture.client("carol")
        try await makeClub("club", by: alice, members: ["carol"])
        let carolList = await ChannelParticipation(client: carol, channelId: "club").getMembers().loaded()
        let bobChannel = await ChannelRepository(client: bob).getChannel("club").loaded()
        #expect(bobChannel.snapshot?.currentUserMembership == Membership.none)
        try await ChannelParticipation(client: alice, channelId: "club").addMembers(["bob"])
        await bob.synchronize()
        await carol.synchronize()
        #expect(bobChannel.snapshot?.currentUserMembership == .member)
        #expect(carolList.snapshots.map(\.userId) == ["alice", "carol", "bob"])
    }

    @Test func onlyModeratorsRemoveAndBroadcastRefusesInvites() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.registerUser(id: "carol")
        try await makeClub("club", by: alice, members: ["bob", "carol"])
        let bobSide = ChannelParticipation(client: bob, channelId: "club")
        #expect(await chatError { try await bobSide.removeMembers(["carol"]) }?.cause == "forbidden")
        try await fixture.server.registerUser(id: "dave")
        try await bobSide.addMembers(["dave"])  // members invite others

        try await fixture.server.createChannel(type: .broadcast, channelId: "news", userIds: ["bob"])
        let news = ChannelParticipation(client: bob, channelId: "news")
        #expect(await chatError { try await news.addMembers(["carol"]) }?.cause == "forbidden")
    }

    @Test func conversationsRefuseMemberChangesAndBans() async throws {
        let alice = try await fixture.client("alice")
        for user in ["bob", "carol"] { try await fixture.server.registerUser(id: user) }
        let builder = ConversationChannelBuilder()
        builder.setUserIds(["bob"])
        let dm = try await ChannelRepository(client: alice).createChannel(with: builder)
        let participation = ChannelParticipation(client: alice, channelId: dm.channelId)
        let moderation = ChannelModeration(client: alice, channelId: dm.channelId)
        let members = await participation.getMembers().loaded()
        #expect(members.snapshots.map(\.userId).sorted() == ["alice", "bob"])
        #expect(await chatError { try await participation.addMembers(["carol"]) }?.cause == "notAllowed")
        #expect(await chatError { try await participation.removeMembers(["bob"]) }?.cause == "notAllowed")
        #expect(await chatError { try await moderation.banMembers(["bob"]) }?.cause == "notAllowed")
        #expect(await chatError { try await moderation.unbanMembers(["bob"]) }?.cause == "notAllowed")
        #expect(await chatError { try await moderation.muteMembers(["bob"], mutePeriod: 60) }?.cause == "notAllowed")
        let (ok, error) = await withCheckedContinuation { continuation in
            participation.addMembers(["carol"]) { ok, error in continuation.resume(returning: (ok, error)) }
        }
        #expect(!ok)
        #expect((error as? ChatError)?.cause == "notAllowed")
        #expect(members.snapshots.map(\.userId).sorted() == ["alice", "bob"])
        #expect(fixture.server.members(channelId: dm.channelId).map(\.userId) == ["alice", "bob"])
    }

    @Test func invalidPageSizeAndInvisibleChannelsReportErrors() async throws {
        let alice = try await fixture.client("alice")
        let participation = ChannelParticipation(client: alice, channelId: "club")
        let bad = participation.getMembers(pageSize: 0)
        #expect(bad.dataStatus == .error)
        #expect((bad.error as? ChatError)?.cause == "invalidArgument")
        let missing = await participation.getMembers().loaded()
        #expect(missing.dataStatus == .error)
        #expect((missing.error as? ChatError)?.cause == "notFound")
    }

    @Test func memberListSurvivesADroppedConnection() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        for user in ["carol", "dave"] { try await fixture.server.registerUser(id: user) }
        try await makeClub("club", by: alice, members: ["bob", "carol"])
        let list = await ChannelParticipation(client: bob, channelId: "club").getMembers().loaded()
        #expect(fixture.server.faults.dropConnection(userId: "bob", deviceId: "phone"))
        let participation = ChannelParticipation(client: alice, channelId: "club")
        try await participation.removeMembers(["carol"])
        try await participation.addMembers(["dave"])
        _ = await bob.connectionState.value { $0 == .connected }
        await bob.synchronize()
        #expect(list.snapshots.map(\.userId) == ["alice", "bob", "dave"])
    }

    // MARK: Reading

    /// Calls the fire-and-forget forms from synchronous code.
    private func readFireAndForget(_ participation: ChannelParticipation, start: Bool) {
        if start { participation.startReading() } else { participation.stopReading() }
    }

    @Test func startAndStopReadingInBothForms() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let participation = ChannelParticipation(client: bob, channelId: "club")
        let channel = await ChannelRepository(client: bob).getChannel("club").loaded()
        for text in ["1", "2", "3"] { try await send(text, in: "club", by: alice) }
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 3)

        // The async form: when it returns, the server and the live channel agree on 0.
        try await participation.startReading()
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 0)
        #expect(channel.snapshot?.unreadCount == 0)
        try await send("4", in: "club", by: alice)
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 0)
        try await participation.stopReading()
        try await send("5", in: "club", by: alice)
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 1)

        // The fire-and-forget forms, in order: start, then stop (flushed by an async stop).
        readFireAndForget(participation, start: true)
        _ = await channel.value { $0?.readSequence == 5 }
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 0)
        readFireAndForget(participation, start: false)
        try await participation.stopReading()
        try await send("6", in: "club", by: alice)
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 1)

        // A non-member cannot read.
        let carol = try await fixture.client("carol")
        let outsider = ChannelParticipation(client: carol, channelId: "club")
        #expect(await chatError { try await outsider.startReading() }?.cause == "forbidden")
        readFireAndForget(outsider, start: true)  // the failure is dropped silently
    }

    /// Many fire-and-forget calls reach the server in the order they were made.
    @Test func fireAndForgetReadingKeepsItsOrder() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let participation = ChannelParticipation(client: bob, channelId: "club")
        for _ in 0..<20 {
            readFireAndForget(participation, start: true)
            readFireAndForget(participation, start: false)
        }
        readFireAndForget(participation, start: true)
        try await participation.startReading()
        try await send("x", in: "club", by: alice)
        #expect(fixture.server.unreadCount(userId: "bob", channelId: "club") == 0)
    }
}
