import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Synchronization
import Testing

/// After a failed `synchronize()`, the next `synchronize()` asks the server again (it does not
/// rethrow the old error), and a handle's or controller's error clears once it is fresh again.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct SynchronizeRetryTests {
    let fixture = ChatFixture()

    private func scene() async throws -> ChatClient {
        try await fixture.server.registerUser(id: "bob", displayName: "Bob")
        let alice = try await fixture.client("alice")
        try await fixture.server.createChannel(
            type: .community, channelId: "ops", displayName: "Ops", userIds: ["alice", "bob"])
        try await fixture.server.sendMessage(as: "bob", channelId: "ops", text: "hello")
        await alice.synchronize()
        return alice
    }

    /// Arms `count` failures of alice's requests, runs `synchronize` expecting it to throw the
    /// injected error, then runs it again expecting it to load.
    private func failThenRetry(
        failures count: Int = 1, _ synchronize: () async throws -> Void, loaded: () -> Bool
    ) async throws {
        fixture.server.faults.failNext(count, with: .unavailable("injected"), userId: "alice")
        do {
            try await synchronize()
            Issue.record("the first synchronize did not fail")
        } catch let error as ChatError {
            guard case .unavailable(let message) = error, message.contains("injected") else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
        try await synchronize()
        #expect(loaded())
    }

    @Test func theChannelListControllerLoadsOnTheSecondSynchronize() async throws {
        let alice = try await scene()
        let controller = alice.channelListController(
            query: ChannelListQuery(filter: .containMembers(userIds: ["alice"])))
        try await failThenRetry(
            { try await controller.synchronize() }, loaded: { controller.channels.map(\.channelId) == ["ops"] })
        #expect(controller.state == .remoteDataFetched)
    }

    @Test func theChannelControllerLoadsOnTheSecondSynchronize() async throws {
        let alice = try await scene()
        let controller = alice.channelController(for: "ops")
        // Both of its first requests (the channel, the first page of messages) fail.
        try await failThenRetry(failures: 3, { try await controller.synchronize() }) {
            controller.channel?.displayName == "Ops" && controller.messages.map(\.text) == ["hello"]
        }
        #expect(controller.state == .remoteDataFetched)
    }

    @Test func theMemberListControllerLoadsOnTheSecondSynchronize() async throws {
        let alice = try await scene()
        let controller = alice.memberListController(query: ChannelMemberListQuery(channelId: "ops"))
        try await failThenRetry({ try await controller.synchronize() }) {
            Set(controller.members.map(\.userId)) == ["alice", "bob"]
        }
        #expect(controller.state == .remoteDataFetched)
    }

    @Test func theMemberControllerLoadsOnTheSecondSynchronize() async throws {
        let alice = try await scene()
        let controller = alice.memberController(userId: "bob", in: "ops")
        try await failThenRetry({ try await controller.synchronize() }, loaded: { controller.member?.userId == "bob" })
        #expect(controller.state == .remoteDataFetched)
    }

    @Test func theUserSearchControllerLoadsOnTheSecondSynchronize() async throws {
        let alice = try await scene()
        let controller = alice.userSearchController()
        try await failThenRetry({ try await controller.synchronize() }) {
            Set(controller.userArray.map(\.userId)).isSuperset(of: ["alice", "bob"])
        }
        #expect(controller.state == .remoteDataFetched)
    }

    @Test func aLiveObjectsErrorClearsOnceItIsFreshAgain() async throws {
        let alice = try await scene()
        fixture.server.faults.failNext(1, with: .unavailable("injected"), userId: "alice")
        let channel = ChannelRepository(client: alice).getChannel("ops")
        await until(channel) { $0.loadingStatus == .error }
        #expect(channel.error != nil)
        await alice.synchronize()  // retries what failed
        await until(channel) { $0.dataStatus == .fresh && $0.loadingStatus == .loaded }
        #expect(channel.error == nil, "still \(String(describing: channel.error))")
    }

    @Test func aLiveCollectionsErrorClearsOnceItIsFreshAgain() async throws {
        let alice = try await scene()
        fixture.server.faults.failNext(1, with: .unavailable("injected"), userId: "alice")
        let messages = MessageRepository(client: alice).getMessages(channelId: "ops")
        await until(messages) { $0.loadingStatus == .error }
        #expect(messages.error != nil)
        await alice.synchronize()
        await until(messages) { $0.dataStatus == .fresh && $0.loadingStatus == .loaded }
        #expect(messages.error == nil, "still \(String(describing: messages.error))")
        #expect(messages.snapshots.map(\.text) == ["hello"])
    }

    @Test func theConnectionStatesErrorClearsOnceConnectedAgain() async throws {
        let alice = try await scene()
        let seen = Mutex<[(ConnectionState?, Bool)]>([])
        let token = alice.connectionState.observe(on: .synchronous) { state, error in
            seen.withLock { $0.append((state.snapshot, error != nil)) }
        }
        fixture.server.faults.failNextConnects(2, userId: "alice")
        #expect(fixture.server.faults.dropConnection(userId: "alice", deviceId: "phone"))
        await until(alice.connectionState) { state in
            seen.withLock { $0.contains { $0.1 } } && state.snapshot == .connected
        }
        #expect(alice.connectionState.error == nil, "\(seen.withLock { $0 })")
        #expect(seen.withLock { $0.last?.0 == .connected && $0.last?.1 == false })
        token.invalidate()
    }

    /// Returns once `object`'s state satisfies `condition`, checked at every delivery (no clock).
    private func until<Value>(_ object: LiveObject<Value>, _ condition: @escaping @Sendable (LiveObject<Value>) -> Bool)
        async
    {
        let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let tokens = Mutex<[NotificationToken]>([])
        await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let token = object.observe(on: .synchronous) { object, _ in
                if condition(object) { waiter.withLock { $0.take() }?.resume() }
            }
            tokens.withLock { $0.append(token) }
        }
        tokens.withLock { $0 }.forEach { $0.invalidate() }
    }

    /// Returns once `collection`'s state satisfies `condition`, checked at every delivery.
    private func until<Element>(
        _ collection: LiveCollection<Element>, _ condition: @escaping @Sendable (LiveCollection<Element>) -> Bool
    ) async {
        let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let tokens = Mutex<[NotificationToken]>([])
        await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let token = collection.observe(on: .synchronous) { collection, _, _ in
                if condition(collection) { waiter.withLock { $0.take() }?.resume() }
            }
            tokens.withLock { $0.append(token) }
        }
        tokens.withLock { $0 }.forEach { $0.invalidate() }
    }
}
