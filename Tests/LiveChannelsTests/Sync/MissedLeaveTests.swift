import ChatAPI
import ChatServer
import LiveChannels
import Locking
import Testing

/// A channel the user left on another device while this one was away, and whose leave this
/// device missed (its replay log overflowed: the reconnect resyncs), is no longer shown as
/// joined once the server says the user cannot see it — even when the resync's own fetches of
/// it failed (the soak's seed 18651: a live channel object kept showing the user as a member
/// beside the server's `notFound`).
@Suite(.timeLimit(.minutes(1))) struct MissedLeaveTests {
    /// Makes `getChannel` requests fail with `unavailable` (as when the connection drops with
    /// them in flight) while armed, and counts them.
    final class FailingFetches: Sendable {
        private let state = Lock((armed: false, failed: 0))

        func arm(_ armed: Bool) { state.withLock { $0.armed = armed } }
        var failed: Int { state.withLock { $0.failed } }

        func transport(_ inner: any ChatTransport) -> InterceptingTransport {
            var hooks = InterceptingTransport.Hooks()
            hooks.beforeSend = { [self] request in
                guard case .getChannel = request else { return }
                let fails = state.withLock { state -> Bool in
                    if state.armed { state.failed += 1 }
                    return state.armed
                }
                if fails { throw ChatError.unavailable("the connection dropped with the request in flight") }
            }
            return InterceptingTransport(inner, hooks: hooks)
        }
    }

    /// Alice's tablet shows the live channel `c2` she belongs to, goes away, and misses her leave
    /// from her phone (a replay log of one event: the reconnect resyncs); the resync's fetches
    /// of `c2` fail.
    static func aliceLeavesWhileHerTabletIsAway() async throws -> (
        tablet: ChatClient, shown: LiveObject<Channel>
    ) {
        let server = ChatServer(configuration: ServerConfiguration(eventLogCapacity: 1))
        try await server.createChannel(type: .live, channelId: "c2", userIds: ["alice", "bob"])
        try await server.createChannel(type: .community, channelId: "c0", userIds: ["alice", "bob"])
        let fetches = FailingFetches()
        let tablet = ChatClient(transport: fetches.transport(server.connection(userId: "alice", deviceId: "tablet")))
        try await tablet.connect()
        let shown = ChannelRepository(client: tablet).getChannel("c2")
        #expect(await shown.value { $0?.currentUserMembership == .member } != nil)
        await tablet.disconnect()
        let phone = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await phone.connect()
        try await ChannelRepository(client: phone).leaveChannel("c2")
        for text in ["one", "two", "three"] {
            _ = try await server.sendMessage(as: "bob", channelId: "c0", text: text)
        }
        await phone.close()

        // The tablet comes back: the reconnect resyncs, and fetches c2 (a joined channel the
        // server no longer lists, and one a live object shows); every such fetch fails.
        fetches.arm(true)
        try await tablet.connect()
        #expect(await eventually { fetches.failed >= 2 })
        await tablet.synchronize()
        fetches.arm(false)
        #expect(shown.snapshot?.currentUserMembership == .member, "the failed fetches changed nothing yet")
        return (tablet, shown)
    }

    /// Every `getChannel` of the resync fails: the tablet fetches `c2` again once its
    /// connection is back (here: `synchronize()`), learns it cannot see it, and shows it as not
    /// joined — out of the unread total and the joined lists.
    @Test func aFetchOfTheResyncThatFailedIsTriedAgain() async throws {
        let (tablet, shown) = try await Self.aliceLeavesWhileHerTabletIsAway()
        await tablet.synchronize()
        #expect(shown.snapshot?.currentUserMembership == Membership.none, "\(String(describing: shown.snapshot))")
        let joined = ChannelRepository(client: tablet).getChannels(
            query: ChannelListQuery(filter: .equal(.joined, to: true), pageSize: 10))
        #expect(await eventually { joined.loadingStatus == .loaded })
        #expect(joined.snapshots.map(\.channelId) == ["c0"])
        await tablet.close()
    }

    /// The resync's fetches failed, and a live object of `c2` opened afterwards is answered
    /// `notFound`: the cached `c2` is no longer shown as joined, beside that error.
    @Test func aNotFoundAnswerToALiveObjectEndsAStaleMembership() async throws {
        let (tablet, shown) = try await Self.aliceLeavesWhileHerTabletIsAway()
        let opened = ChannelRepository(client: tablet).getChannel("c2")
        #expect(await eventually { opened.loadingStatus == .error })
        guard case ChatError.notFound? = opened.error as? ChatError else {
            Issue.record("expected notFound, got \(String(describing: opened.error))")
            return
        }
        #expect(opened.snapshot?.currentUserMembership == Membership.none, "\(String(describing: opened.snapshot))")
        #expect(shown.snapshot?.currentUserMembership == Membership.none)
        await tablet.close()
    }
}
