import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

/// Other members' read markers are live: in an Amity member list and in Stream's member
/// controllers, `readSequence` moves for every member, not only the current user.
@Suite(.timeLimit(.minutes(2))) struct ReadMarkerTests {
    let fixture = ChatFixture()

    private func scene() async throws -> (alice: ChatClient, bob: ChatClient) {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        for index in 1...3 { try await fixture.server.sendMessage(as: "alice", channelId: "room", text: "m\(index)") }
        await bob.synchronize()
        await alice.synchronize()
        return (alice, bob)
    }

    @Test func anotherMembersMarkerMovesInAMemberList() async throws {
        let (alice, bob) = try await scene()
        let members = await ChannelParticipation(client: alice, andChannel: "room")
            .getMembers(filter: .all, sortBy: .firstCreated, roles: []).loaded()
        #expect(members.snapshots.first { $0.userId == "bob" }?.readSequence == 0)

        // Bob reads: alice's list shows it.
        try await ChannelParticipation(client: bob, andChannel: "room").startReading()
        await alice.synchronize()
        #expect(members.snapshots.first { $0.userId == "bob" }?.readSequence == 3)

        // While bob reads, his marker follows each new message, in alice's list too.
        try await fixture.server.sendMessage(as: "alice", channelId: "room", text: "m4")
        await bob.synchronize()
        await alice.synchronize()
        #expect(members.snapshots.first { $0.userId == "bob" }?.readSequence == 4)
    }

    @MainActor
    @Test func anotherMembersMarkerMovesInStreamsMemberControllers() async throws {
        let (alice, bob) = try await scene()
        let list = alice.memberListController(query: ChannelMemberListQuery(channelId: "room"))
        let one = alice.memberController(userId: "bob", in: "room")
        try await list.synchronize()
        try await one.synchronize()
        #expect(one.member?.readSequence == 0)

        let channel = bob.channelController(for: "room")
        try await channel.synchronize()
        try await channel.markAsRead()
        await alice.synchronize()
        // The controllers show it once the main actor has delivered what alice applied.
        let spy = MemberSpy()
        one.delegate = spy
        while one.member?.readSequence != 3 { await spy.nextChange() }
        #expect(one.member?.readSequence == 3)
        #expect(list.members.first { $0.userId == "bob" }?.readSequence == 3)
    }

    @Test func largeChannelsTellOnlyTheReaderPastTheLimit() async throws {
        var configuration = ServerConfiguration()
        configuration.maxMembersForReadEvents = 2
        let fixture = ChatFixture(server: ChatServer(configuration: configuration))
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.createChannel(type: .community, channelId: "big", userIds: ["alice", "bob", "carol"])
        try await fixture.server.sendMessage(as: "alice", channelId: "big", text: "hi")
        await bob.synchronize()
        let before = fixture.server.lastEventSequence(userId: "alice", deviceId: "phone")
        try await ChannelParticipation(client: bob, andChannel: "big").startReading()
        await bob.synchronize()
        await alice.synchronize()
        // Bob's own marker moved; alice, in a channel past the limit, was not sent an event.
        #expect(try await ChannelRepository(client: bob).getChannel(channelId: "big").unreadCount == 0)
        #expect(fixture.server.lastEventSequence(userId: "alice", deviceId: "phone") == before)
        // A member list loaded afterwards shows the marker.
        let members = await ChannelParticipation(client: alice, andChannel: "big")
            .getMembers(filter: .all, sortBy: .firstCreated, roles: []).loaded()
        #expect(members.snapshots.first { $0.userId == "bob" }?.readSequence == 1)
    }
}

/// Waits for a member controller's next change, without a clock.
@MainActor
private final class MemberSpy: ChatChannelMemberControllerDelegate {
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func nextChange() async {
        await withCheckedContinuation { waiters.append($0) }
    }

    func memberController(
        _ controller: ChatChannelMemberController, didUpdateMember change: EntityChange<ChannelMember>
    ) {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }
}
