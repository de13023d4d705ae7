import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

@MainActor
@Suite(.timeLimit(.minutes(2))) struct ChannelListControllerTests {
    let fixture = ChatFixture()

    @Test func loadsNothingBeforeSynchronizeThenLocalThenRemote() async throws {
        let alice = try await fixture.client("alice")
        try await fixture.server.createChannel(type: .community, channelId: "a", displayName: "A", userIds: ["alice"])
        let controller = alice.channelListController(
            query: ChannelListQuery(filter: .containMembers(userIds: ["alice"])))
        let spy = ControllerSpy()
        controller.delegate = spy
        #expect(controller.state == .initialized)
        #expect(controller.channels.isEmpty && !controller.hasLoadedAllChannels)
        await alice.synchronize()
        #expect(controller.state == .initialized && spy.states.isEmpty)

        try await controller.synchronize()
        #expect(controller.state == .remoteDataFetched)
        #expect(spy.states == [.localDataFetched, .remoteDataFetched])
        #expect(controller.channels.map(\.channelId) == ["a"])
        #expect(controller.hasLoadedAllChannels)
        #expect(spy.channelChanges.flattened().map(\.isInsert) == [true])
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func anotherUsersActionsArriveLiveAsListChanges() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let controller = alice.channelListController(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["alice"]), sort: [Sorting(key: .channelId, isAscending: true)]))
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        #expect(controller.channels.isEmpty)

        // Bob creates a channel with alice: it enters her list.
        let builder = CommunityChannelBuilder()
        builder.setId("b")
        builder.setUserIds(["alice"])
        _ = try await ChannelRepository(client: bob).createChannel(with: builder)
        await spy.until { controller.channels.map(\.channelId) == ["b"] }
        #expect(spy.willChangeChannels == spy.channelChanges.count)
        #expect(spy.willChangeSawOldList)
        guard case .insert(let channel, let index)? = spy.channelChanges.last?.first else {
            Issue.record("no insert: \(spy.channelChanges)")
            return
        }
        #expect(channel.channelId == "b" && index == IndexPath(indexes: [0, 0]))

        // Bob renames it: an update in place.
        let updater = ChannelUpdateBuilder(channelId: "b", client: bob)
        updater.setDisplayName("Bee")
        _ = try await ChannelRepository(client: bob).updateChannel(with: updater)
        await spy.until { controller.channels.first?.displayName == "Bee" }
        #expect(spy.channelChanges.last?.contains { $0.isUpdate && $0.item.displayName == "Bee" } == true)

        // Bob removes alice: the channel leaves her list.
        try await ChannelParticipation(client: bob, channelId: "b").removeMembers(["alice"])
        await spy.until { controller.channels.isEmpty }
        #expect(spy.channelChanges.last?.map(\.isRemove) == [true])
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func theFilterBlockAppliesOnTopOfTheQuery() async throws {
        let alice = try await fixture.client("alice")
        for id in ["x1", "x2", "y1"] {
            try await fixture.server.createChannel(type: .community, channelId: id, displayName: id, userIds: ["alice"])
        }
        let controller = alice.channelListController(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["alice"]), sort: [Sorting(key: .channelId, isAscending: true)]),
            filter: { $0.displayName?.hasPrefix("x") == true })
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        #expect(controller.channels.map(\.channelId) == ["x1", "x2"])

        // A channel renamed into the filter enters; one renamed out of it leaves.
        try await fixture.server.createChannel(type: .community, channelId: "z", displayName: "z", userIds: ["alice"])
        try await fixture.server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        let boss = try await fixture.client("boss")
        let updater = ChannelUpdateBuilder(channelId: "y1", client: boss)
        updater.setDisplayName("xy")
        _ = try await ChannelRepository(client: boss).updateChannel(with: updater)
        await spy.until { controller.channels.map(\.channelId) == ["x1", "x2", "y1"] }
        let renamer = ChannelUpdateBuilder(channelId: "x1", client: boss)
        renamer.setDisplayName("gone")
        _ = try await ChannelRepository(client: boss).updateChannel(with: renamer)
        await spy.until { controller.channels.map(\.channelId) == ["x2", "y1"] }
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func loadNextChannelsHonoursTheLimit() async throws {
        let alice = try await fixture.client("alice")
        for index in 0..<7 {
            try await fixture.server.createChannel(
                type: .community, channelId: "c\(index)", displayName: nil, userIds: ["alice"])
        }
        let controller = alice.channelListController(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["alice"]), sort: [Sorting(key: .channelId, isAscending: true)],
                pageSize: 2))
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.loadNextChannels(limit: 3)  // before synchronize: the first page, of 3
        #expect(controller.channels.map(\.channelId) == ["c0", "c1", "c2"])
        #expect(controller.state == .remoteDataFetched)
        let done: Bool = await withCheckedContinuation { continuation in
            controller.loadNextChannels(limit: 1) { error in continuation.resume(returning: error == nil) }
        }
        #expect(done)
        #expect(controller.channels.count == 4)
        try await controller.loadNextChannels(limit: 5)
        #expect(controller.channels.count == 7)
        #expect(controller.hasLoadedAllChannels)
        await #expect(throws: ChatError.self) { try await controller.loadNextChannels(limit: 0) }
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func aFailedLoadIsReportedAsState() async throws {
        let alice = try await fixture.client("alice")
        fixture.server.faults.failNext(1, userId: "alice", deviceId: "phone")
        let controller = alice.channelListController(
            query: ChannelListQuery(filter: .containMembers(userIds: ["alice"])))
        let spy = ControllerSpy()
        controller.delegate = spy
        let error: (any Error)? = await withCheckedContinuation { continuation in
            controller.synchronize { continuation.resume(returning: $0) }
        }
        #expect(error as? ChatError != nil)
        guard case .remoteDataFetchFailed = controller.state else {
            Issue.record("state \(controller.state)")
            return
        }
        #expect(spy.states.first == .localDataFetched)
    }
}
