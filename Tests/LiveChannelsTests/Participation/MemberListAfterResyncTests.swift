import ChatAPI
import ChatServer
import LiveChannels
import Testing

/// A member who left while the client was away, and whom the list's reload left out, stays out
/// when only their profile changes afterwards (the convergence soak's seed 3380: the client's
/// stale cached member record, refreshed with the user's new presence, came back into the list).
@Suite(.timeLimit(.minutes(1))) struct MemberListAfterResyncTests {
    @Test func aMemberTheReloadLeftOutStaysOutWhenTheirProfileChanges() async throws {
        // A replay log of one event: carol's reconnect cannot resume, so she resyncs.
        let server = ChatServer(configuration: ServerConfiguration(eventLogCapacity: 1))
        try await server.createChannel(type: .community, channelId: "c0", userIds: ["alice", "bob", "carol"])
        try await server.createChannel(type: .community, channelId: "c1", userIds: ["bob", "carol"])
        let carol = ChatClient(transport: server.connection(userId: "carol", deviceId: "phone"))
        try await carol.connect()
        let members = ChannelParticipation(client: carol, channelId: "c0").getMembers(
            filter: .all, sortBy: .firstCreated, pageSize: 20)
        #expect(await eventually { Set(members.snapshots.map(\.userId)) == ["alice", "bob", "carol"] })

        await carol.disconnect()
        let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "phone"))
        try await bob.connect()
        try await ChannelRepository(client: bob).leaveChannel("c0")
        await bob.disconnect()
        try await carol.connect()
        await carol.synchronize()
        #expect(Set(members.snapshots.map(\.userId)) == ["alice", "carol"], "the resync's reload leaves bob out")

        // Bob comes back: his presence changes, and carol's cached (stale) c0 record of him
        // takes his new profile — its version is the one the reload's page already left out.
        try await bob.connect()
        await carol.synchronize()
        #expect(server.user("bob")?.isOnline == true)
        #expect(Set(members.snapshots.map(\.userId)) == ["alice", "carol"], "\(members.snapshots.map(\.userId))")
        await bob.close()
        await carol.close()
    }
}
