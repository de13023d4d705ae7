import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

@MainActor
@Suite(.timeLimit(.minutes(2))) struct MemberControllerTests {
    let fixture = ChatFixture()

    func scene() async throws -> (alice: ChatClient, bob: ChatClient) {
        for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol"), ("dave", "Dave")] {
            try await fixture.server.registerUser(id: id, displayName: name)
        }
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.createChannel(
            type: .community, channelId: "ops", displayName: "Ops", userIds: ["alice", "bob"])
        return (alice, bob)
    }

    @Test func memberListChangesLiveWithProfilesAndPresence() async throws {
        let (alice, bob) = try await scene()
        let controller = alice.memberListController(query: ChannelMemberListQuery(channelId: "ops"))
        let spy = ControllerSpy()
        controller.delegate = spy
        #expect(controller.state == .initialized && controller.members.isEmpty)
        try await controller.synchronize()
        #expect(spy.states == [.localDataFetched, .remoteDataFetched])
        #expect(Set(controller.members.map(\.userId)) == ["alice", "bob"])
        #expect(controller.members.first { $0.userId == "bob" }?.user?.isOnline == true)
        #expect(controller.hasLoadedAllMembers)

        // Bob adds carol: an insert.
        try await ChannelParticipation(client: bob, channelId: "ops").addMembers(["carol"])
        await spy.until { controller.members.count == 3 }
        #expect(spy.memberChanges.last?.map(\.isInsert) == [true])

        // Bob renames himself, then disconnects: his row updates, offline with a last-seen time.
        try await UserRepository(client: bob).updateCurrentUser(displayName: "Robert")
        await spy.until { controller.members.contains { $0.user?.displayName == "Robert" } }
        await bob.disconnect()
        await spy.until { controller.members.first { $0.userId == "bob" }?.user?.isOnline == false }
        #expect(controller.members.first { $0.userId == "bob" }?.user?.lastActiveAt != nil)
        #expect(spy.memberChanges.last?.map(\.isUpdate) == [true])

        // Carol is removed by the console: a remove.
        try await fixture.server.addMembers(["dave"], to: "ops")
        await spy.until { controller.members.count == 4 }
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func loadNextMembersHonoursTheLimit() async throws {
        let (alice, _) = try await scene()
        try await fixture.server.addMembers(["carol", "dave"], to: "ops")
        let controller = alice.memberListController(query: ChannelMemberListQuery(channelId: "ops", pageSize: 1))
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        #expect(controller.members.count == 1)
        let done: Bool = await withCheckedContinuation { continuation in
            controller.loadNextMembers(limit: 2) { continuation.resume(returning: $0 == nil) }
        }
        #expect(done && controller.members.count == 3)
        try await controller.loadNextMembers(limit: 5)
        #expect(controller.members.count == 4 && controller.hasLoadedAllMembers)
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func oneMemberIsCreatedUpdatedAndRemoved() async throws {
        let (alice, bob) = try await scene()
        let controller = alice.memberController(userId: "carol", in: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        #expect(controller.state == .initialized)
        try await controller.synchronize()
        #expect(controller.member == nil)  // not a member yet
        #expect(spy.states == [.localDataFetched, .remoteDataFetched])

        try await ChannelParticipation(client: bob, channelId: "ops").addMembers(["carol"])
        await spy.until { controller.member != nil }
        guard case .create(let created)? = spy.memberEntityChanges.first else {
            Issue.record("no create: \(spy.memberEntityChanges)")
            return
        }
        #expect(created.userId == "carol" && created.user?.displayName == "Carol")

        // Carol connects: her presence updates the member.
        let carol = try await fixture.client("carol")
        await spy.until { controller.member?.user?.isOnline == true }
        guard case .update? = spy.memberEntityChanges.last else {
            Issue.record("no update: \(spy.memberEntityChanges)")
            return
        }

        try await ChannelRepository(client: carol).leaveChannel("ops")
        await spy.until { controller.member == nil }
        guard case .remove(let removed)? = spy.memberEntityChanges.last else {
            Issue.record("no remove: \(spy.memberEntityChanges)")
            return
        }
        #expect(removed.userId == "carol")
    }
}
