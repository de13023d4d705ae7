import ChatAPI
import ChatServer
@testable import LiveChannels
import Locking
import Testing

/// A reconnect that starts while the user's `disconnect()` is under way: the disconnect has been
/// counted (so the reconnect takes that count as its own and believes itself wanted), and then
/// ends the connection the reconnect has just made (the transport's current one). The reconnect
/// must not report `.connected` over the user's `.disconnected` for a connection that is gone:
/// a client that reads `.connected` is not connected again by `connect()` (it returns at once),
/// no reconnect follows (the end was requested), and every load that fails meanwhile — a live
/// list opened while offline — stays in error for good (the soak's seed 58849: alice/phone's
/// list 'mine by lastMessageAt desc (page 2)' in error with "the connection of device 'phone'
/// has ended" after healing).
@Suite(.timeLimit(.minutes(1))) struct ReconnectRaceTests {
    /// Holds the user's disconnect (counted, not yet sent) until the reconnect's connect has
    /// attached, and the reconnect (attached, not yet recorded) until the test lets it go.
    final class Race: Sendable {
        let disconnectCounted = Gate()
        let reconnectAttached = Gate()
        let releaseReconnect = Gate()
        /// Opened by the test when the reconnect may send its connect (see `holdingConnect`).
        let sendConnect = Gate()
        /// Which hooks step in next time; each steps in once per arming.
        private let armed = Lock<Set<Hook>>([])
        private enum Hook { case disconnect, connect, holdConnect }

        /// Arms the race for the next disconnect and connect; `holdingConnect`: the connect also
        /// waits for ``sendConnect`` before it is sent.
        func arm(holdingConnect: Bool = false) {
            armed.withLock { $0 = holdingConnect ? [.disconnect, .connect, .holdConnect] : [.disconnect, .connect] }
        }

        /// Arms the connect only: the next connect is held once attached (``reconnectAttached``
        /// opens) until ``releaseReconnect``.
        func armConnect() { armed.withLock { $0 = [.connect] } }

        /// Whether `hook` is armed, disarming it.
        private func take(_ hook: Hook) -> Bool { armed.withLock { $0.remove(hook) != nil } }

        func transport(_ inner: any ChatTransport) -> InterceptingTransport {
            var hooks = InterceptingTransport.Hooks()
            hooks.beforeDisconnect = { [self] in
                guard take(.disconnect) else { return }
                disconnectCounted.open()
                await reconnectAttached.wait()
            }
            hooks.beforeConnect = { [self] in
                guard take(.holdConnect) else { return }
                await sendConnect.wait()
            }
            hooks.afterConnect = { [self] in
                guard take(.connect) else { return }
                reconnectAttached.open()
                await releaseReconnect.wait()
            }
            return InterceptingTransport(inner, hooks: hooks)
        }

        /// Creates the channel "room" of alice and bob, and connects alice's phone through this
        /// race's transport, reconnecting at once after a drop.
        func connectedMember(of server: ChatServer) async throws -> ChatClient {
            try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
            let alice = ChatClient(
                transport: transport(server.connection(userId: "alice", deviceId: "phone")),
                reconnectPolicy: .immediate)
            try await alice.connect()
            return alice
        }
    }

    @Test func aReconnectWhoseConnectionTheUsersDisconnectEndedDoesNotReportConnected() async throws {
        let server = ChatServer()
        let race = Race()
        let alice = try await race.connectedMember(of: server)
        #expect(await Settling.synchronize(alice))

        // The user goes offline: the disconnect is counted, then held before it is sent.
        race.arm()
        let disconnecting = Task { await alice.disconnect() }
        await race.disconnectCounted.wait()
        // The server drops the connection meanwhile: the client reconnects (after the count),
        // and its connect attaches; then the held disconnect ends that new connection.
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        await race.reconnectAttached.wait()
        await disconnecting.value
        #expect(alice.connectionState.snapshot == .disconnected)
        race.releaseReconnect.open()
        // Let the reconnect finish: it needs a few scheduler turns (the engine records the
        // connect, then it decides whether to report `.connected`). A reconnect that reports
        // it does so well within this budget; one that does not (as it should not) costs the
        // whole budget, so it is kept small.
        _ = await Settling.connection(of: alice, in: [.connected], budget: 1_000)

        // A list opened while offline fails for want of a connection.
        let joined = ChannelRepository(client: alice).getChannels(
            query: ChannelListQuery(filter: .equal(.joined, to: true), pageSize: 2))
        #expect(await Settling.idle(joined))

        // Healing as the soak does: connect unless the client says it is connected, then
        // synchronize. The list loads.
        if alice.connectionState.snapshot != .connected { try await alice.connect() }
        #expect(await Settling.synchronize(alice))
        #expect(await Settling.idle(joined))
        #expect(
            joined.loadingStatus == .loaded && joined.dataStatus == .fresh,
            "\(joined.dataStatus), \(joined.loadingStatus): \(String(describing: joined.error))")
        #expect(joined.snapshots.map(\.channelId) == ["room"])
        await alice.close()
    }

    /// The same race on the user's own `connect()` (the soak's seed 73912): a `disconnect()`
    /// ends the connection a `connect()` has just made, before that connect reports. The
    /// connect must not report `.connected` over it, and a `connect()` made after the
    /// disconnect must not share that attempt: it connects anew, and the client hears what
    /// others send.
    @Test func aConnectWhoseConnectionALaterDisconnectEndedDoesNotReportConnected() async throws {
        let server = ChatServer()
        let race = Race()
        let alice = try await race.connectedMember(of: server)
        let room = ChannelRepository(client: alice).getChannel("room")
        #expect(await Settling.idle(room))
        await alice.disconnect()

        // alice connects again; her connect attaches, and waits before it reports.
        race.armConnect()
        let first = Task { try await alice.connect() }
        await race.reconnectAttached.wait()
        // She disconnects (ending the connection just made), then connects again at once.
        await alice.disconnect()
        #expect(alice.connectionState.snapshot == .disconnected)
        let second = Task { try await alice.connect() }
        race.releaseReconnect.open()
        await #expect(throws: ChatError.self, "overtaken by the disconnect") { try await first.value }
        try await second.value
        #expect(alice.connectionState.snapshot == .connected)

        // Connected for real: bob's message reaches her.
        let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "laptop"))
        try await bob.connect()
        _ = try await MessageRepository(client: bob).sendMessage(
            channelId: "room", text: "are you there?", mentionedUserIds: [])
        #expect(await Settling.synchronize(alice))
        #expect(room.snapshot?.unreadCount == 1, "\(String(describing: room.snapshot))")
        await bob.close()
        await alice.close()
    }

    /// The same race, where the server answers the reconnect `resyncRequired` (what the device
    /// missed is past the replay log's retention). The engine records that connection — its
    /// events flow, numbered after the resync point — but it was not wanted, so nothing
    /// resyncs then. The user's next `connect()` resumes after that point and the server
    /// answers `resumed`: the resync the first connection called for is still owed, and runs.
    @Test func aResyncThatAnUnwantedReconnectCalledForRunsAtTheNextConnect() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let race = Race()
        let alice = try await race.connectedMember(of: server)
        let room = ChannelRepository(client: alice).getChannel("room")
        #expect(await Settling.idle(room))
        #expect(room.snapshot?.displayName == nil)

        race.arm(holdingConnect: true)
        let disconnecting = Task { await alice.disconnect() }
        await race.disconnectCounted.wait()
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        // While the device is away, the channel is renamed, and time passes beyond the replay
        // log's retention: the reconnect is answered `resyncRequired`.
        try await server.updateChannel(ChannelChanges(channelId: "room", displayName: "Renamed"))
        clock.advance(by: 90_000)
        server.runHousekeeping()
        race.sendConnect.open()
        await race.reconnectAttached.wait()
        await disconnecting.value
        race.releaseReconnect.open()
        _ = await Settling.connection(of: alice, in: [.connected], budget: 1_000)
        #expect(alice.connectionState.snapshot == .disconnected)

        try await alice.connect()
        #expect(await Settling.synchronize(alice))
        #expect(await Settling.idle(room))
        #expect(room.snapshot?.displayName == "Renamed")
        await alice.close()
    }
}
