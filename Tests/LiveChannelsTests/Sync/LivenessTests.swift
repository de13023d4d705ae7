import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Locking
import Testing

/// Every async call ends: nothing waits for events that belong to a connection that is gone.
///
/// Each test forces one interleaving the convergence soak met by chance (the issue "Every call
/// returns and every list recovers after healing"): events held back on the server (a
/// `delayEvents` fault on a clock that never moves), then the connection ends at a chosen moment
/// and the client does not reconnect. Each wait is bounded by ``Settling`` (scheduler turns, no
/// sleeping), so a call that would wait forever fails the test instead of hanging it.
@Suite(.timeLimit(.minutes(1))) struct LivenessTests {
    /// Ends alice's connection at a chosen moment of her transport (its hooks): right after
    /// `lastQueuedEventSequence()` is read, or right after a response came — and then waits
    /// until the client has taken the end in (its state is no longer `.connected`).
    final class Interruption: Sendable {
        enum Moment: Sendable { case afterReadingTheLastQueuedEvent, afterAResponse }

        let server: ChatServer
        let userId: String
        let deviceId: String
        private let armed = Lock<Moment?>(nil)
        /// The client, to wait until it saw the end (set after it is made).
        private let client = Lock<ChatClient?>(nil)

        init(_ server: ChatServer, userId: String, deviceId: String) {
            self.server = server
            self.userId = userId
            self.deviceId = deviceId
        }

        func arm(_ moment: Moment, for client: ChatClient) {
            self.client.withLock { $0 = client }
            armed.withLock { $0 = moment }
        }

        /// The device's transport, interrupted where armed.
        func transport() -> InterceptingTransport {
            var hooks = InterceptingTransport.Hooks()
            hooks.afterResponse = { [self] _ in await interrupt(at: .afterAResponse) }
            hooks.afterReadingLastQueuedEvent = { [self] in await interrupt(at: .afterReadingTheLastQueuedEvent) }
            return InterceptingTransport(server.connection(userId: userId, deviceId: deviceId), hooks: hooks)
        }

        private func interrupt(at moment: Moment) async {
            let fires = armed.withLock { armed in
                defer { if armed == moment { armed = nil } }
                return armed == moment
            }
            guard fires, let client = client.withLock({ $0 }) else { return }
            server.faults.dropConnection(userId: userId, deviceId: deviceId)
            _ = await client.connectionState.value { $0 != .connected }
        }
    }

    /// A policy that never reconnects: the connection, once lost, stays lost.
    static let neverReconnect = ReconnectPolicy(maximumAttempts: 1) { _ in throw CancellationError() }

    @Test func synchronizeWhileOfflineReturnsAtOnceAndCatchesUpAfterReconnecting() async throws {
        let server = ChatServer()
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        let alice = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await alice.connect()
        let room = ChannelRepository(client: alice).getChannel("room")
        _ = await room.value { $0 != nil }
        await alice.disconnect()
        // The device's replay log grows while it is away; those events come only with a next
        // connection, so waiting for them offline would wait for good.
        try await server.sendMessage(as: "bob", channelId: "room", text: "while you were away")
        #expect(await Settling.synchronize(alice), "synchronize() waited for a connection that had ended")

        try await alice.connect()
        #expect(await Settling.synchronize(alice))
        #expect(room.snapshot?.messageCount == 1)
        await alice.close()
    }

    /// Alice's phone, connected through a transport that an ``Interruption`` can end and that
    /// never reconnects, her events held back from now on.
    static func aliceWithHeldBackEvents() async throws -> (ChatServer, Interruption, ChatClient) {
        let server = ChatServer(clock: ManualClock())
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        let interruption = Interruption(server, userId: "alice", deviceId: "phone")
        let alice = ChatClient(transport: interruption.transport(), reconnectPolicy: neverReconnect)
        try await alice.connect()
        server.faults.delayEvents(by: 3_600, userId: "alice", deviceId: "phone")
        return (server, interruption, alice)
    }

    @Test func synchronizeReturnsWhenItsConnectionEndsBeforeItWaits() async throws {
        let (server, interruption, alice) = try await Self.aliceWithHeldBackEvents()
        try await server.sendMessage(as: "bob", channelId: "room", text: "held back")
        // synchronize() reads the last queued event (the held one), then the connection ends
        // before it starts waiting: the end's own wake-up has already run.
        interruption.arm(.afterReadingTheLastQueuedEvent, for: alice)
        #expect(await Settling.synchronize(alice), "synchronize() waited for events of a connection that had ended")
        #expect(alice.connectionState.snapshot != .connected)
        await alice.close()
    }

    @Test func aRequestWhoseConnectionEndsBeforeItsEventsReturns() async throws {
        let (server, interruption, alice) = try await Self.aliceWithHeldBackEvents()
        // The response comes, stamped after alice's own held-back event; then the connection
        // ends before the response waits for that event.
        interruption.arm(.afterAResponse, for: alice)
        let sent = Lock<Message?>(nil)
        let returned = await Settling.within {
            let message = try? await MessageRepository(client: alice).sendMessage(
                channelId: "room", text: "mine", mentionedUserIds: [])
            sent.withLock { $0 = message }
            return true
        }
        #expect(returned, "the request waited for events of a connection that had ended")
        #expect(sent.withLock { $0?.text } == "mine")
        #expect(server.messages(channelId: "room").map(\.text) == ["mine"])
        await alice.close()
    }

    /// Steps into a transport's next connect, once armed: `before` runs before the server
    /// attaches the connection, `after` once it has (the connection is the device's current one,
    /// its events flow) but before `connect` returns and the client records it.
    final class NextConnect: Sendable {
        typealias Step = @Sendable () async -> Void
        private let armed = Lock<(before: Step, after: Step)?>(nil)

        func arm(before: @escaping Step, after: @escaping Step) {
            armed.withLock { $0 = (before, after) }
        }

        /// `inner`, its next connect stepped into where armed.
        func transport(_ inner: any ChatTransport) -> InterceptingTransport {
            let taken = Shared<(before: Step, after: Step)?>(nil)
            var hooks = InterceptingTransport.Hooks()
            hooks.beforeConnect = { [self] in
                let steps = armed.withLock { armed in
                    defer { armed = nil }
                    return armed
                }
                taken.withLock { $0 = steps }
                await steps?.before()
            }
            hooks.afterConnect = { await taken.withLock { $0 }?.after() }
            return InterceptingTransport(inner, hooks: hooks)
        }
    }

    /// A reconnect that resyncs (the replay log lost events) records the server's last event
    /// number only once `connect` has returned; an event of the new connection the event loop
    /// applied before that must stay applied. Moving the applied number back below it left the
    /// resync's requests (stamped after that event) and `synchronize()` waiting for an event that
    /// had come already: the total unread count stayed `.loading` on a connected client (the
    /// soak's seed 511).
    @Test func anEventOfANewConnectionAppliedBeforeTheConnectIsRecordedIsNotWaitedForAgain() async throws {
        let server = ChatServer(configuration: ServerConfiguration(eventLogCapacity: 2))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        let nextConnect = NextConnect()
        let alice = ChatClient(
            transport: nextConnect.transport(server.connection(userId: "alice", deviceId: "phone")),
            reconnectPolicy: .immediate)
        try await alice.connect()
        let channels = ChannelRepository(client: alice)
        let room = channels.getChannel("room")
        let total = channels.getTotalUnreadCount()
        _ = await room.value { $0 != nil }
        #expect(await Settling.idle(total))

        nextConnect.arm(
            before: {
                // While alice is away, more events than her replay log holds: the reconnect resyncs.
                for text in ["one", "two", "three"] {
                    _ = try? await server.sendMessage(as: "bob", channelId: "room", text: text)
                }
            },
            after: {
                // The new connection is attached; its first event reaches alice's event loop, which
                // applies it before the client records the connection.
                _ = try? await server.sendMessage(as: "bob", channelId: "room", text: "during the connect")
                _ = await room.value { $0?.messageCount == 4 }
            })
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        _ = await room.value { $0?.messageCount == 4 }
        #expect(await Settling.connection(of: alice, in: [.connected]))

        #expect(await Settling.synchronize(alice), "synchronize() waited for an event it had applied")
        #expect(await Settling.idle(total), "the unread total stayed .loading on a connected client")
        #expect(alice.connectionState.snapshot == .connected)
        #expect(room.snapshot?.messageCount == 4)
        await alice.close()
    }
}
