import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveCore
import Locking
import Testing

/// One test per point 1–5 of the consistency issue (live data that always converges). Public API
/// only. Races are looped; where a window can be held open (a delayed request on a
/// ``ManualClock``, a reconnect policy the test releases) it is, so the scenario is deterministic.
@Suite(.timeLimit(.minutes(3)))
struct ConsistencyRegressionTests {
    // MARK: Helpers

    private static func client(
        _ server: ChatServer, _ userId: String, device: String = "phone"
    ) async throws -> ChatClient {
        let client = ChatClient(
            transport: server.connection(userId: userId, deviceId: device), reconnectPolicy: .immediate)
        try await client.connect()
        return client
    }

    private static func community(
        _ id: String, by client: ChatClient, members: [String] = [], tags: [String] = []
    ) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setUserIds(members)
        builder.setTags(tags)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    private static func live(_ id: String, by client: ChatClient, members: [String]) async throws {
        let builder = LiveChannelBuilder()
        builder.setId(id)
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    /// Waits (bounded, no sleeping) until the list is not loading; records an issue if it stays loading.
    private static func settle<Element>(
        _ list: LiveCollection<Element>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let settled = await Settling.idle(list)
        #expect(settled, "\(what) is still .loading", sourceLocation: sourceLocation)
    }

    private static func settle<Value>(
        _ object: LiveObject<Value>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let settled = await Settling.idle(object)
        #expect(settled, "\(what) is still .loading", sourceLocation: sourceLocation)
    }

    /// Every channel of `query` as a fresh client of `userId` (a device of its own) lists it.
    private static func freshQuery(
        _ server: ChatServer, _ userId: String, _ query: ChannelListQuery
    ) async throws -> [Channel] {
        let client = try await client(server, userId, device: "fresh-\(UUID().uuidString)")
        defer { Task { await client.disconnect() } }
        let list = ChannelRepository(client: client).getChannels(query: query)
        await settle(list, "a fresh client's list")
        while list.hasNext {
            list.nextPage()
            await settle(list, "a fresh client's list")
            if list.dataStatus == .error { break }
        }
        return list.snapshots
    }

    // MARK: 1. Lost update

    /// Another user renames (then deletes) a channel while this client's own request on that
    /// channel is in flight: after `synchronize()`, the open list, a new query and the channel
    /// object all show the last rename, then the deletion.
    @Test func renameOrDeleteDuringOwnRequestIsNotLost() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let alice = try await Self.client(server, "alice")
        let bob = try await Self.client(server, "bob")
        let bobChannels = ChannelRepository(client: bob)
        let query = ChannelListQuery(
            filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .channelId, isAscending: true)])
        let ids = (0..<8).map { "club\($0)" }
        for id in ids { try await Self.community(id, by: alice, members: ["bob"]) }
        let list = bobChannels.getChannels(query: query)
        await Self.settle(list, "bob's list")
        let objects = Dictionary(uniqueKeysWithValues: ids.map { ($0, bobChannels.getChannel($0)) })
        for (id, object) in objects { await Self.settle(object, "object \(id)") }
        #expect(list.snapshots.map(\.channelId) == ids, "precondition: bob's list")

        var lost: [String] = []
        for round in 0..<400 {
            // Every request of the round is held on the server's clock, then all are released at
            // once: bob's own requests on each channel (a get and a join) and alice's renames run
            // as close together as they can.
            server.faults.delayNext(ids.count, by: 1, userId: "alice", deviceId: "phone")
            server.faults.delayNext(2 * ids.count, by: 1, userId: "bob", deviceId: "phone")
            await withTaskGroup(of: Void.self) { group in
                for id in ids {
                    group.addTask {
                        let updater = ChannelUpdateBuilder(channelId: id, client: alice)
                        updater.setDisplayName("\(id) round \(round)")
                        updater.setMetadata(["round": .number(Double(round))])
                        _ = try? await ChannelRepository(client: alice).updateChannel(with: updater)
                    }
                    group.addTask { _ = try? await bobChannels.getChannel(channelId: id) }
                    group.addTask { _ = try? await bobChannels.joinChannel(channelId: id) }
                }
                group.addTask {
                    await clock.waitForSleepers(3 * ids.count)
                    clock.advance(by: 1)
                }
            }
            await bob.synchronize()
            for id in ids {
                let expected = server.channel(id)?.displayName
                #expect(expected == "\(id) round \(round)", "precondition: alice's rename of \(id) went through")
                let inList = list.snapshots.first { $0.channelId == id }?.displayName
                let inObject = objects[id]?.snapshot?.displayName
                if inList != expected || inObject != expected {
                    lost.append(
                        "round \(round) \(id): list \(inList ?? "nil"), object \(inObject ?? "nil"), server \(expected ?? "nil")"
                    )
                }
            }
        }
        #expect(lost.isEmpty, "renames lost on bob's client (\(lost.count)): \(lost.prefix(8))")

        let fresh = bobChannels.getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .channelId, isAscending: false)]))
        await Self.settle(fresh, "a new query on bob's client")
        let freshNames = Dictionary(uniqueKeysWithValues: fresh.snapshots.map { ($0.channelId, $0.displayName) })
        let stale = ids.filter { freshNames[$0] != server.channel($0)?.displayName }
        #expect(stale.isEmpty, "a new query on the same client shows stale names for \(stale)")

        // Deletion racing bob's request.
        await withTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask { try? await server.deleteChannel(id) }
                group.addTask { _ = try? await bobChannels.getChannel(channelId: id) }
            }
        }
        await bob.synchronize()
        let expectedList = try await Self.freshQuery(server, "bob", query)
        #expect(
            list.snapshots.map(ChannelView.init) == expectedList.map(ChannelView.init),
            "bob's open list after the deletions: \(list.snapshots.map(ChannelView.init))")
        let notDeleted = ids.filter { objects[$0]?.snapshot?.isDeleted != true }
        #expect(notDeleted.isEmpty, "channel objects not showing the deletion: \(notDeleted)")
        let newQuery = bobChannels.getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)]))
        await Self.settle(newQuery, "a new query after the deletions")
        let expectedNew = try await Self.freshQuery(
            server, "bob",
            ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)]))
        #expect(newQuery.snapshots.map(ChannelView.init) == expectedNew.map(ChannelView.init))
    }

    // MARK: 2. Member pages out of order with member events

    /// Member lists opened while members are added and removed converge to the server's members:
    /// a page answered before an event but applied after it must not undo the event.
    @Test func memberListOpenedDuringMemberChangesConverges() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let alice = try await Self.client(server, "alice")
        let bob = try await Self.client(server, "bob")
        let users = (0..<12).map { "user\($0)" }
        for user in users { try await server.registerUser(id: user) }
        try await Self.community("club", by: alice, members: ["bob"] + users.prefix(6))
        let aliceSide = ChannelParticipation(client: alice, channelId: "club")
        let bobSide = ChannelParticipation(client: bob, channelId: "club")
        let longLived = bobSide.getMembers(filter: .all, sortBy: .firstCreated, pageSize: 20)

        var diverged: [String] = []
        for round in 0..<150 {
            let pageSize = [2, 3, 20][round % 3]
            let sort: MemberSort = round.isMultiple(of: 2) ? .firstCreated : .lastCreated
            let changed = (0..<4).map { users[(round * 4 + $0) % users.count] }
            let lists = Shared<[(String, LiveCollection<ChannelMember>)]>([])
            // Alice's changes and both first pages are held on the server's clock and released
            // together, so the pages are read and applied among the member events.
            server.faults.delayNext(3, by: 1, userId: "alice", deviceId: "phone")
            server.faults.delayNext(1, by: 1, userId: "bob", deviceId: "phone")
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = try? await aliceSide.removeMembers([changed[0], changed[1]]) }
                group.addTask {
                    lists.withLock {
                        $0.append(("bob", bobSide.getMembers(filter: .all, sortBy: sort, pageSize: pageSize)))
                    }
                }
                group.addTask { _ = try? await aliceSide.addMembers([changed[2]]) }
                group.addTask {
                    lists.withLock {
                        $0.append(("alice", aliceSide.getMembers(filter: .all, sortBy: sort, pageSize: pageSize)))
                    }
                }
                group.addTask {
                    _ = await Settling.within {
                        await clock.waitForSleepers(4)
                        return true
                    }
                    clock.advance(by: 1)
                    try? await server.addMembers([changed[3], changed[0]], to: "club")
                }
            }
            await alice.synchronize()
            await bob.synchronize()
            let current = server.members(channelId: "club").filter { $0.membership == .member }
            func expected(_ sort: MemberSort) -> [MemberView] {
                current.sorted {
                    $0.joinedAt != $1.joinedAt
                        ? (sort == .firstCreated ? $0.joinedAt < $1.joinedAt : $0.joinedAt > $1.joinedAt)
                        : $0.userId < $1.userId
                }.map(MemberView.init)
            }
            for (who, list) in lists.withLock({ $0 }) + [("bob (long-lived)", longLived)] {
                await Self.settle(list, "\(who)'s member list")
                let sort = who.hasSuffix("(long-lived)") ? MemberSort.firstCreated : sort
                if let difference = windowDivergence(
                    live: list.snapshots.map(MemberView.init), hasNext: list.hasNext, expected: expected(sort))
                {
                    diverged.append("round \(round) \(who) (page \(pageSize), \(sort)): \(difference)")
                }
            }
        }
        #expect(
            diverged.isEmpty,
            "member lists diverged in \(diverged.count) cases:\n\(diverged.prefix(4).joined(separator: "\n"))")
    }

    // MARK: 3. Recovery after a failed page, a dropped connection, and before connect()

    /// A list whose first page fails recovers by itself after the client reconnects, then follows
    /// membership events; nobody calls `nextPage()`.
    @Test func listWhosePageFailedRecoversAfterReconnect() async throws {
        let server = ChatServer()
        let alice = try await Self.client(server, "alice")
        let bob = try await Self.client(server, "bob")
        try await Self.community("before", by: alice, members: ["bob"])
        server.faults.failNext(1, userId: "bob", deviceId: "phone")
        let list = ChannelRepository(client: bob).getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)]))
        await Self.settle(list, "the list")
        #expect(list.loadingStatus == .error, "precondition: the injected failure reaches the list")

        await bob.disconnect()
        try await bob.connect()
        await bob.synchronize()
        await Self.settle(list, "the list after reconnecting")
        #expect(list.dataStatus == .fresh, "the list stays \(list.dataStatus) after the reconnect")
        #expect(list.snapshots.map(\.channelId) == ["before"])

        try await Self.community("after", by: alice, members: ["bob"])
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["before", "after"], "the list ignores membership events")
    }

    /// The connection drops while a list's page request is in flight (held on the server's clock);
    /// the request fails; once the client reconnects the list loads by itself and follows events.
    @Test func listWhoseConnectionDroppedMidRequestRecovers() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let alice = try await Self.client(server, "alice")
        let gate = Gate()
        let bob = ChatClient(
            transport: server.connection(userId: "bob", deviceId: "phone"),
            reconnectPolicy: ReconnectPolicy(maximumAttempts: 5) { _ in await gate.wait() })
        try await bob.connect()
        try await Self.community("before", by: alice, members: ["bob"])

        server.faults.delayNext(1, by: 1, userId: "bob", deviceId: "phone")
        let list = ChannelRepository(client: bob).getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)]))
        await clock.waitForSleepers(1)  // the page request is parked on the server
        server.faults.dropConnection(userId: "bob", deviceId: "phone")
        clock.advance(by: 1)  // it runs now, on a dropped connection
        await Self.settle(list, "the list")
        #expect(list.dataStatus != .fresh, "precondition: the page request failed with the connection")

        gate.open()  // let the client reconnect
        #expect(await Settling.connection(of: bob, in: [.connected]))
        await bob.synchronize()
        await Self.settle(list, "the list after reconnecting")
        #expect(list.dataStatus == .fresh, "the list stays \(list.dataStatus) after the reconnect")
        #expect(list.snapshots.map(\.channelId) == ["before"])

        try await Self.community("after", by: alice, members: ["bob"])
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["before", "after"], "the list ignores membership events")
    }

    /// Handles created before `connect()` load once the client is connected.
    @Test func handlesCreatedBeforeConnectLoadOnceConnected() async throws {
        let server = ChatServer()
        let alice = try await Self.client(server, "alice")
        try await server.registerUser(id: "bob")
        try await Self.community("club", by: alice, members: ["bob"])
        try await server.sendMessage(as: "alice", channelId: "club", text: "hi")

        let bob = ChatClient(
            transport: server.connection(userId: "bob", deviceId: "phone"), reconnectPolicy: .immediate)
        let repository = ChannelRepository(client: bob)
        let list = repository.getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)]))
        let object = repository.getChannel("club")
        let members = ChannelParticipation(client: bob, channelId: "club").getMembers()
        let messages = MessageRepository(client: bob).getMessages(channelId: "club")
        // Their first requests have run (and failed: not connected) before the client connects.
        await Self.settle(list, "the list before connecting")
        await Self.settle(object, "the channel object before connecting")
        await Self.settle(members, "the member list before connecting")
        await Self.settle(messages, "the message list before connecting")
        try await bob.connect()
        await bob.synchronize()
        await Self.settle(list, "the list")
        await Self.settle(object, "the channel object")
        await Self.settle(members, "the member list")
        await Self.settle(messages, "the message list")
        #expect(
            list.snapshots.map(\.channelId) == ["club"], "list: \(list.dataStatus), \(String(describing: list.error))")
        #expect(object.snapshot?.unreadCount == 1, "object: \(object.dataStatus), \(String(describing: object.error))")
        #expect(Set(members.snapshots.map(\.userId)) == ["alice", "bob"], "members: \(members.dataStatus)")
        #expect(messages.snapshots.map(\.text) == ["hi"], "messages: \(messages.dataStatus)")
    }

    // MARK: 4. Live channels the user left or was removed from

    /// After leaving, or being removed from, a live channel, it leaves the user's open lists and
    /// does not appear in new queries on the same client (nor in a fresh client's).
    @Test func liveChannelLeftOrRemovedDisappearsFromLists() async throws {
        let server = ChatServer()
        let alice = try await Self.client(server, "alice")
        let bob = try await Self.client(server, "bob")
        try await Self.live("stage", by: alice, members: ["bob"])
        try await Self.live("backstage", by: alice, members: ["bob"])
        let repository = ChannelRepository(client: bob)
        let queries: [(String, ChannelListQuery)] = [
            ("live channels", repository.getChannels().liveType(with: LiveChannelQueryBuilder()).listQuery),
            ("all visible", ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: true)])),
            (
                "by types",
                repository.getChannels().byTypes(
                    with: ByTypesChannelQueryBuilder(types: [.live, .community], channelQueryFilter: .all)
                ).listQuery
            ),
        ]
        let lists = queries.map { ($0.0, repository.getChannels(query: $0.1)) }
        for (name, list) in lists { await Self.settle(list, name) }
        for (name, list) in lists {
            #expect(Set(list.snapshots.map(\.channelId)) == ["stage", "backstage"], "precondition: \(name)")
        }

        try await repository.leaveChannel("stage")
        try await ChannelParticipation(client: alice, channelId: "backstage").removeMembers(["bob"])
        await bob.synchronize()
        #expect(server.channel("stage", as: "bob") == nil && server.channel("backstage", as: "bob") == nil)
        for (name, list) in lists {
            #expect(
                list.snapshots.map(\.channelId).isEmpty,
                "open list '\(name)' still shows \(list.snapshots.map(\.channelId))")
        }
        for (name, query) in queries {
            let again = repository.getChannels(
                query: ChannelListQuery(filter: query.filter, sort: query.sort, pageSize: query.pageSize + 1))
            await Self.settle(again, name)
            #expect(
                again.snapshots.map(\.channelId).isEmpty,
                "a new query '\(name)' shows \(again.snapshots.map(\.channelId))")
            let fresh = try await Self.freshQuery(server, "bob", query)
            #expect(fresh.isEmpty, "the server lists \(fresh.map(\.channelId)) (test premise)")
        }
    }

    // MARK: 5. Races around the first page; unread counts

    /// A channel created and then left from another device of the same user while a list's first
    /// page is in flight ends up absent from that list.
    @Test func channelCreatedAndLeftElsewhereDuringFirstPageIsAbsent() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let phone = try await Self.client(server, "alice", device: "phone")
        let tablet = try await Self.client(server, "alice", device: "tablet")
        let phoneChannels = ChannelRepository(client: phone)
        let tabletChannels = ChannelRepository(client: tablet)

        let sorts: [ChannelSortingKey] = [.createdAt, .channelId, .default, .updatedAt, .lastActivity]
        var stale: [String] = []
        for round in 0..<200 {
            let id = "pop\(round)"
            let query = ChannelListQuery(
                filter: .containMembers(userIds: ["alice"]),
                sort: [Sorting(key: sorts[round % sorts.count], isAscending: round.isMultiple(of: 2))],
                pageSize: 1 + round / 4)
            if round < 10 {
                // Created and left while the first page is held on the server.
                server.faults.delayNext(1, by: 1, userId: "alice", deviceId: "phone")
                let list = phoneChannels.getChannels(query: query)
                await clock.waitForSleepers(1)
                try await Self.community(id, by: tablet)
                try await tabletChannels.leaveChannel(id)
                clock.advance(by: 1)
                await phone.synchronize()
                await Self.settle(list, "round \(round)")
                if list.snapshots.contains(where: { $0.channelId == id }) { stale.append("\(id) (held page)") }
            } else {
                // The first page races the creation and the leave.
                let opened = Shared<LiveCollection<Channel>?>(nil)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try? await Self.community(id, by: tablet)
                        try? await tabletChannels.leaveChannel(id)
                    }
                    group.addTask {
                        await Task.yield()
                        opened.withLock { $0 = phoneChannels.getChannels(query: query) }
                    }
                }
                guard let list = opened.withLock({ $0 }) else { continue }
                await phone.synchronize()
                await Self.settle(list, "round \(round)")
                if list.snapshots.contains(where: { $0.channelId == id }) { stale.append("\(id) (race)") }
            }
        }
        #expect(stale.isEmpty, "left channels still listed: \(stale)")
    }

    /// Messages arriving while a fresh client loads its channels: each channel's unread count and
    /// the total converge to the server's.
    @Test func unreadCountsConvergeWhenMessagesRaceTheFirstLoad() async throws {
        let server = ChatServer()
        let alice = try await Self.client(server, "alice")
        try await server.registerUser(id: "bob")
        try await Self.community("club", by: alice, members: ["bob"])
        var diverged: [String] = []
        for round in 0..<30 {
            let bob = ChatClient(
                transport: server.connection(userId: "bob", deviceId: "device\(round)"), reconnectPolicy: .immediate)
            let repository = ChannelRepository(client: bob)
            let total = repository.getTotalUnreadCount()
            let list = repository.getChannels(
                query: ChannelListQuery(
                    filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .lastMessageAt, isAscending: false)])
            )
            let id = "new\(round)"
            async let connect: Void = { try? await bob.connect() }()
            async let traffic: Void = {
                _ = try? await MessageRepository(client: alice).sendMessage(
                    channelId: "club", text: "m\(round)", mentionedUserIds: [])
                try? await Self.community(id, by: alice, members: ["bob"])
                _ = try? await MessageRepository(client: alice).sendMessage(
                    channelId: id, text: "first", mentionedUserIds: [])
            }()
            _ = await (connect, traffic)
            _ = await Settling.connection(of: bob, in: [.connected])
            await bob.synchronize()
            await Self.settle(total, "round \(round) total")
            await Self.settle(list, "round \(round) list")
            let object = repository.getChannel(id)
            await Self.settle(object, "round \(round) object")
            let expectedTotal = server.totalUnreadCount(userId: "bob")
            if total.snapshot != expectedTotal || repository.totalUnreadCount != expectedTotal {
                diverged.append(
                    "round \(round): total \(total.snapshot.map(String.init) ?? "nil")/\(repository.totalUnreadCount), server \(expectedTotal)"
                )
            }
            for channel in list.snapshots {
                let unread = server.unreadCount(userId: "bob", channelId: channel.channelId)
                if channel.unreadCount != unread {
                    diverged.append(
                        "round \(round): \(channel.channelId) in list unread \(channel.unreadCount), server \(unread)")
                }
            }
            let objectUnread = server.unreadCount(userId: "bob", channelId: id)
            if object.snapshot?.unreadCount != objectUnread {
                let shown = object.snapshot.map { String($0.unreadCount) } ?? "nil"
                diverged.append("round \(round): object \(id) unread \(shown), server \(objectUnread)")
            }
            await bob.disconnect()
        }
        #expect(diverged.isEmpty, "unread counts diverged:\n\(diverged.prefix(8).joined(separator: "\n"))")
    }
}

/// A gate tasks wait at until the test opens it (for a reconnect policy the test controls).
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    // Guards whether the gate is open and the tasks waiting at it.
    private let state = Lock(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A value tasks of a group share, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    // Guards the value.
    private let value: Lock<Value>

    init(_ value: Value) {
        self.value = Lock(value)
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        value.withLock { body(&$0) }
    }
}
