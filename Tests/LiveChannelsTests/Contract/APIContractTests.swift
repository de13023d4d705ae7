import ChatServer
import Foundation
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`), snippet by snippet, written as a user's app would
/// write it: only `import LiveChannels` and `import ChatServer`, no `@testable`. Every name,
/// label and shape pinned there must compile here, and every behaviour stated there is asserted.
@Suite(.timeLimit(.minutes(1))) struct APIContractTests {

    // MARK: Setup

    @Test func setupSnippetConnectsAndDisconnects() async throws {
        let server = ChatServer()  // in memory
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await client.connect()
        let currentUserId: String = client.currentUserId
        #expect(currentUserId == "alice")
        await client.disconnect()  // async, non-throwing: no `try`

        // `connection(userId:deviceId:)` is synchronous, returns `any ChatTransport`, and
        // `deviceId` has a default.
        let transport: any ChatTransport = server.connection(userId: "dave")
        let dave = ChatClient(transport: transport)
        try await dave.connect()
        #expect(dave.currentUserId == "dave")
        await dave.disconnect()
    }

    @Test func usersAreRegisteredOnFirstConnect() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "dave")
        let builder = CommunityChannelBuilder()
        builder.setId("club")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let participation = ChannelParticipation(client: alice, channelId: "club")
        // "dave" connected once, so he is a user; "ghost" never did.
        try await participation.addMembers(["dave"])
        let error = await thrownChatError { try await participation.addMembers(["ghost"]) }
        guard case .invalidArgument = error else {
            Issue.record("adding an unknown user: expected invalidArgument, got \(String(describing: error))")
            return
        }
    }

    @Test func consoleRegistersUsersAndCreatesChannelsOfAnyType() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        try await server.createChannel(
            type: .broadcast, channelId: "news",
            displayName: "News", userIds: ["alice", "bob"])  // any type
        let alice = try await connectedClient(server, "alice")
        let news = try await loadedValue(of: ChannelRepository(client: alice).getChannel("news"))
        #expect(news.type == .broadcast)
        #expect(news.displayName == "News")
        #expect(news.currentUserMembership == .member)
        #expect(news.memberCount == 2)

        // The registered admin may send to the broadcast channel; a plain member may not.
        let boss = try await connectedClient(server, "boss")
        _ = try await MessageRepository(client: boss).sendMessage(channelId: "news", text: "hello", mentionedUserIds: [])
        let bob = try await connectedClient(server, "bob")
        let error = await thrownChatError {
            _ = try await MessageRepository(client: bob).sendMessage(channelId: "news", text: "hi", mentionedUserIds: [])
        }
        guard case .forbidden = error else {
            Issue.record("a member sending to a broadcast channel: expected forbidden, got \(String(describing: error))")
            return
        }

        // Any type: the console creates the types clients cannot.
        let repository = ChannelRepository(client: alice)
        for type in [ChannelType.standard, .private, .community, .live, .conversation] {
            let id = "console-\(type.rawValue)"
            try await server.createChannel(type: type, channelId: id, displayName: "C", userIds: ["alice", "bob"])
            let channel = try await loadedValue(of: repository.getChannel(id))
            #expect(channel.type == type, "console-created \(type)")
            #expect(channel.currentUserMembership == .member, "console-created \(type)")
        }
    }

    /// Not actor-isolated: everything below is called from a nonisolated synchronous function.
    @Test func serverClientRepositoriesBuildersAndHandlesAreNotActorIsolated() async throws {
        let made = Self.makeEverythingSynchronously()
        #expect(made.client.currentUserId == "erin")
        #expect(made.handle.snapshot == nil)
        #expect(made.list.count == 0)
    }

    private nonisolated static func makeEverythingSynchronously() -> (
        client: ChatClient, handle: LiveObject<Channel>, list: LiveCollection<Channel>
    ) {
        let server = ChatServer()
        let client = ChatClient(transport: server.connection(userId: "erin", deviceId: "phone"))
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setDisplayName("Sync")
        let updater = ChannelUpdateBuilder(channelId: "x", client: client)
        updater.setDisplayName("y")
        _ = ChannelParticipation(client: client, channelId: "x")
        _ = ChannelModeration(client: client, channelId: "x")
        _ = MessageRepository(client: client)
        let list = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query()
        return (client, repository.getChannel("x"), list)
    }

    // MARK: Live objects

    @Test func liveObjectObserveObserveOnceStatusesAndInvalidate() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setId("room")
        builder.setDisplayName("Room")
        _ = try await repository.createChannel(with: builder)
        let liveObject = repository.getChannel("room")
        MainQueue.prepare()
        #expect(!MainQueue.isCurrent)  // tests run off the main queue

        // Default context: the main actor.
        let mainCalls = Log<(onMain: Bool, name: String?, loaded: Bool)>()
        let token: NotificationToken = liveObject.observe { liveObject, error in
            let _: Channel? = liveObject.snapshot  // Value?
            let _: DataStatus = liveObject.dataStatus  // .notExist / .local / .fresh / .error
            let _: LoadingStatus = liveObject.loadingStatus  // .notLoading / .loading / .loaded / .error
            let _: (any Error)? = error
            mainCalls.append(
                (MainQueue.isCurrent, liveObject.snapshot?.displayName, liveObject.loadingStatus == .loaded))
        }
        // An explicit context first.
        let explicitMain = Log<Bool>()
        let mainToken = liveObject.observe(on: .main) { _, _ in explicitMain.append(MainQueue.isCurrent) }
        let synchronous = Log<String?>()
        let syncToken = liveObject.observe(on: .synchronous) { liveObject, _ in
            synchronous.append(liveObject.snapshot?.displayName)
        }
        // observeOnce: once, with the first state that is not loading, even with its token dropped.
        let once = Log<(status: LoadingStatus, name: String?)>()
        liveObject.observeOnce { liveObject, error in
            once.append((liveObject.loadingStatus, liveObject.snapshot?.displayName))
        }

        let channel = try await loadedValue(of: liveObject)
        #expect(channel.displayName == "Room")
        #expect(liveObject.dataStatus == .fresh)
        #expect(liveObject.loadingStatus == .loaded)
        let lastError: (any Error)? = liveObject.error
        #expect(lastError == nil)

        #expect(await eventually { mainCalls.all.contains { $0.loaded } && !explicitMain.all.isEmpty })
        #expect(mainCalls.all.allSatisfy { $0.onMain })
        #expect(explicitMain.all.allSatisfy { $0 })
        #expect(await eventually { once.count == 1 })
        #expect(once.all.first?.status == .loaded)
        #expect(once.all.first?.name == "Room")

        // After invalidate, no more calls of that observation.
        syncToken.invalidate()
        let syncCount = synchronous.count
        let updater = ChannelUpdateBuilder(channelId: "room", client: client)
        updater.setDisplayName("Renamed")
        _ = try await repository.updateChannel(with: updater)
        for await value in liveObject.values where value?.displayName == "Renamed" { break }  // Value?
        #expect(await eventually { mainCalls.all.last?.name == "Renamed" })
        #expect(synchronous.count == syncCount)
        #expect(once.count == 1)
        token.invalidate()
        mainToken.invalidate()
    }

    /// "Only observer callbacks default to the main actor": with the default context, callbacks
    /// may touch main-actor state (as a view controller does), `observeOnce` included.
    @Test func defaultCallbacksAreMainActorIsolated() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setId("room")
        builder.setDisplayName("Room")
        _ = try await repository.createChannel(with: builder)
        let object = repository.getChannel("room")
        let list = repository.getChannels(query: ChannelListQuery(filter: .equal(.type, to: .community)))
        let screen = ChannelScreen()
        await screen.show(object, list)
        #expect(await eventually { await screen.state == ("Room", 1, 1) })
        let updater = ChannelUpdateBuilder(channelId: "room", client: client)
        updater.setDisplayName("Renamed")
        _ = try await repository.updateChannel(with: updater)
        #expect(await eventually { await screen.state.title == "Renamed" })
        #expect(await screen.state.onceCalls == 1)
        await screen.stop()
    }

    @Test func liveObjectReportsAChatErrorToObservers() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let object = ChannelRepository(client: client).getChannel("missing")
        let errors = Log<ChatError?>()
        let token = object.observe(on: .synchronous) { _, error in
            if let error { errors.append(error as? ChatError) }
        }
        for await _ in object.values where object.loadingStatus == .error { break }
        #expect(object.dataStatus == .error)
        #expect(object.snapshot == nil)
        guard case .notFound = object.error as? ChatError else {
            Issue.record("expected notFound, got \(String(describing: object.error))")
            return
        }
        #expect(await eventually { !errors.all.isEmpty })
        guard case .notFound = errors.all.first ?? nil else {
            Issue.record("observer: expected notFound, got \(errors.all)")
            return
        }
        token.invalidate()
    }

    // MARK: Live collections

    @Test func collectionObserveDeliversChangesThatApplyToTheDeliveredSnapshots() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for id in ["a", "b", "c", "d"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setUserIds(["bob"])
            _ = try await repository.createChannel(with: builder)
        }
        // Most recent activity first; membership filter so that leaving deletes.
        let collection = repository.getChannels()
            .communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).query()
        let synchronous = Log<(snapshots: [Channel], change: CollectionChange?)>()
        let token = collection.observe(on: .synchronous) { collection, change, error in
            synchronous.append((collection.snapshots, change))
        }
        MainQueue.prepare()
        let onMain = Log<(onMain: Bool, snapshots: [Channel], change: CollectionChange?)>()
        let mainToken = collection.observe { collection, change, error in
            // change: CollectionChange? — nil on the first call
            let _: [Int]? = change?.deletions  // old indices
            let _: [Int]? = change?.insertions  // new indices
            let _: [Int]? = change?.modifications  // old indices
            let _: [Int]? = change?.modificationsInNew  // new indices
            let _: [CollectionChange.Move]? = change?.moves
            let _: Int? = change?.moves.first?.from
            let _: Int? = change?.moves.first?.to
            let _: Bool? = change?.moves.first?.isModified
            let _: (any Error)? = error
            onMain.append((MainQueue.isCurrent, collection.snapshots, change))
        }
        for await update in collection.updates where update.snapshots.count == 4 { break }
        #expect(ids(collection.snapshots) == ["d", "c", "b", "a"])

        // A message moves "a" to the top (and changes it: a move marked isModified).
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "a", text: "hi", mentionedUserIds: [])
        for await update in collection.updates where ids(update.snapshots).first == "a" { break }
        // A rename in place (a modification), a leave (a deletion), a new channel (an insertion).
        let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
        updater.setDisplayName("C")
        _ = try await repository.updateChannel(with: updater)
        try await repository.leaveChannel("b")
        let builder = CommunityChannelBuilder()
        builder.setId("e")
        _ = try await repository.createChannel(with: builder)
        for await update in collection.updates
        where ids(update.snapshots) == ["e", "a", "d", "c"] && update.snapshots.last?.displayName == "C" {
            break
        }

        #expect(await eventually { onMain.all.last.map { ids($0.snapshots) } == ["e", "a", "d", "c"] })
        #expect(await eventually { synchronous.all.last.map { ids($0.snapshots) } == ["e", "a", "d", "c"] })
        for (name, deliveries) in [
            ("synchronous", synchronous.all), ("main", onMain.all.map { ($0.snapshots, $0.change) }),
        ] {
            #expect(deliveries.first?.change == nil, "\(name): the first call has no change")
            for index in deliveries.indices.dropFirst() {
                let (old, new) = (deliveries[index - 1].snapshots, deliveries[index].snapshots)
                guard let change = deliveries[index].change else {
                    Issue.record("\(name): delivery \(index) has no change")
                    continue
                }
                #expect(apply(change, to: old, new: new) == new, "\(name): delivery \(index): \(change)")
            }
        }
        #expect(onMain.all.allSatisfy { $0.onMain })
        let changes = synchronous.all.compactMap(\.change)
        #expect(changes.contains { change in change.moves.contains { $0.isModified } })
        #expect(changes.contains { !$0.deletions.isEmpty })
        #expect(changes.contains { !$0.insertions.isEmpty })
        #expect(changes.contains { !$0.modifications.isEmpty && !$0.modificationsInNew.isEmpty })
        token.invalidate()
        mainToken.invalidate()

        // The latest state, outside callbacks.
        let snapshots: [Channel] = collection.snapshots
        let count: Int = collection.count
        #expect(count == snapshots.count)
        let first: Channel? = collection.object(at: 0)
        #expect(first?.channelId == "e")
        #expect(collection.object(at: 99) == nil)
        let hasNext: Bool = collection.hasNext
        let hasPrevious: Bool = collection.hasPrevious
        #expect(!hasNext && !hasPrevious)
        let collectionError: (any Error)? = collection.error
        #expect(collectionError == nil)
    }

    @Test func insideACallbackTheCollectionShowsTheDeliveredStateOutsideTheNewest() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        let first = CommunityChannelBuilder()
        first.setId("first")
        _ = try await repository.createChannel(with: first)
        let list = repository.getChannels(query: ChannelListQuery(filter: .equal(.type, to: .community)))
        for await update in list.updates where update.snapshots.count == 1 { break }

        let queue = DispatchQueue(label: "APIContractTests.delivery")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let seen = Log<(before: [String], after: [String], outside: [String])>()
        let token = list.observe(on: .queue(queue)) { collection, change, _ in
            guard change == nil else { return }
            let before = ids(collection.snapshots)
            entered.signal()
            proceed.wait()
            seen.append((before, ids(collection.snapshots), ids(list.snapshots)))
        }
        await wait(for: entered)
        let second = CommunityChannelBuilder()
        second.setId("second")
        _ = try await repository.createChannel(with: second)
        for await update in list.updates where update.snapshots.count == 2 { break }
        proceed.signal()
        #expect(await eventually { seen.count == 1 })
        #expect(seen.all.first?.before == ["first"])
        #expect(seen.all.first?.after == ["first"])
        #expect(Set(seen.all.first?.outside ?? []) == ["first", "second"])
        token.invalidate()
    }

    @Test func collectionPaging() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        for id in ["p1", "p2", "p3"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            _ = try await repository.createChannel(with: builder)
        }
        let collection = repository.getChannels(
            query: ChannelListQuery(
                filter: .equal(.type, to: .community), sort: [Sorting(key: .createdAt, isAscending: true)],
                pageSize: 2))
        for await update in collection.updates where update.loadingStatus == .loaded && update.snapshots.count == 2 {
            break
        }
        #expect(ids(collection.snapshots) == ["p1", "p2"])
        #expect(collection.hasNext)
        #expect(!collection.hasPrevious)
        collection.nextPage()
        for await update in collection.updates where update.snapshots.count == 3 && update.loadingStatus != .loading {
            let _: CollectionUpdate<Channel> = update
            let _: [Channel] = update.snapshots
            let _: CollectionChange? = update.change
            break
        }
        #expect(ids(collection.snapshots) == ["p1", "p2", "p3"])
        #expect(!collection.hasNext)
        collection.previousPage()  // nothing before the first page of a channel list
        #expect(collection.count == 3)

        // An invalid query reports its error through the collection.
        let invalid = repository.getChannels(query: ChannelListQuery(filter: .all, sort: [Sorting(key: .default, isAscending: false)], pageSize: 0))
        for await update in invalid.updates where update.loadingStatus != .loading { break }
        guard case .invalidArgument = invalid.error as? ChatError else {
            Issue.record("pageSize 0: expected invalidArgument, got \(String(describing: invalid.error))")
            return
        }

        // Backwards paging: a message list starts with the newest page.
        let messages = MessageRepository(client: alice)
        for number in 1...35 {
            _ = try await messages.sendMessage(channelId: "p1", text: "m\(number)", mentionedUserIds: [])
        }
        let list = messages.getMessages(channelId: "p1")
        for await update in list.updates where update.loadingStatus == .loaded && !update.snapshots.isEmpty { break }
        #expect(list.hasPrevious)
        #expect(list.count < 35)
        #expect(list.object(at: list.count - 1)?.text == "m35")
        list.previousPage()
        for await update in list.updates where update.snapshots.count == 35 && update.loadingStatus != .loading {
            break
        }
        #expect(!list.hasPrevious)
        #expect(list.object(at: 0)?.text == "m1")
    }

    // MARK: CollectionChange

    @Test func collectionChangeDiffsAnyIdentifiableEquatableElements() {
        let old = [Row(id: "a", text: "a"), Row(id: "b", text: "b"), Row(id: "c", text: "c"), Row(id: "d", text: "d")]
        let new = [Row(id: "d", text: "d2"), Row(id: "a", text: "a"), Row(id: "c", text: "c2"), Row(id: "e", text: "e")]
        let diff = CollectionChange(from: old, to: new)
        #expect(diff.deletions == [1])  // b, old index
        #expect(diff.insertions == [3])  // e, new index
        #expect(diff.modifications == [2])  // c, old index
        #expect(diff.modificationsInNew == [2])  // c, new index
        #expect(diff.moves.count == 1)
        // d moved and changed: a move marked isModified, not a modification.
        #expect(diff.moves.first?.from == 3)
        #expect(diff.moves.first?.to == 0)
        #expect(diff.moves.first?.isModified == true)
        #expect(apply(diff, to: old, new: new) == new)

        // A non-generic, Sendable, Equatable value.
        requireSendableEquatable(CollectionChange.self)
        requireSendableEquatable(CollectionChange.Move.self)
        #expect(CollectionChange(from: old, to: old) == CollectionChange(from: new, to: new))
        #expect(CollectionChange(from: old, to: new) == diff)
        #expect(CollectionChange(from: old, to: old) != diff)
        // Any Identifiable & Equatable elements, Sendable or not.
        let plainOld = [PlainRow(id: 1, note: Note("a")), PlainRow(id: 2, note: Note("b"))]
        let plainNew = [PlainRow(id: 2, note: Note("b")), PlainRow(id: 1, note: Note("a"))]
        #expect(CollectionChange(from: plainOld, to: plainNew).moves.count == 1)
        let channels = [Channel(channelId: "x", type: .community)]
        #expect(CollectionChange(from: [Channel](), to: channels).insertions == [0])
    }

    // MARK: Channels

    @Test func channelBuildersAndCreation() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "bob")
        _ = try await connectedClient(server, "carol")
        let repository = ChannelRepository(client: client)

        let builder = CommunityChannelBuilder()  // also LiveChannelBuilder, ConversationChannelBuilder
        builder.setId("my-id")  // optional; generated when absent
        builder.setUserIds(["bob", "carol"])
        builder.setDisplayName("Ops")
        builder.setTags(["ch-comm", "ios-sdk"])
        builder.setMetadata(["sdk_type": "ios"])  // [String: JSON]
        let channelObject: LiveObject<Channel> = repository.createChannel().community(with: builder)
        let community = try await loadedValue(of: channelObject)
        #expect(community.channelId == "my-id")
        #expect(community.type == .community)
        #expect(community.displayName == "Ops")
        #expect(community.tags == ["ch-comm", "ios-sdk"])
        #expect(community.metadata == ["sdk_type": "ios"])
        #expect(community.memberCount == 3)
        #expect(community.currentUserMembership == .member)
        #expect(channelObject.dataStatus == .fresh)

        let liveBuilder = LiveChannelBuilder()
        liveBuilder.setDisplayName("Clinic")
        let live = try await loadedValue(of: repository.createChannel().live(with: liveBuilder))
        #expect(live.type == .live)
        #expect(!live.channelId.isEmpty)  // generated

        let conversationBuilder = ConversationChannelBuilder()
        conversationBuilder.setUserIds(["bob"])
        let conversation = try await loadedValue(of: repository.createChannel().conversation(with: conversationBuilder))
        #expect(conversation.type == .conversation)
        // Unique by member set: the same conversation again.
        let again = try await loadedValue(of: repository.createConversation(with: conversationBuilder))
        #expect(again.channelId == conversation.channelId)

        // userIds required for a conversation.
        let noUsers = repository.createChannel().conversation(with: ConversationChannelBuilder())
        for await _ in noUsers.values where noUsers.loadingStatus != .loading { break }
        guard case .invalidArgument(let field, _) = noUsers.error as? ChatError else {
            Issue.record("conversation without userIds: expected invalidArgument, got \(String(describing: noUsers.error))")
            return
        }
        #expect(field == "userIds")

        // The async form.
        let channel: Channel = try await repository.createChannel(with: CommunityChannelBuilder())
        let other: Channel = try await repository.createChannel(with: CommunityChannelBuilder())
        #expect(!channel.channelId.isEmpty && channel.channelId != other.channelId)
        let liveChannel: Channel = try await repository.createChannel(with: liveBuilder)
        #expect(liveChannel.type == .live)
        let error = await thrownChatError { _ = try await repository.createChannel(with: builder) }
        guard case .alreadyExists = error else {
            Issue.record("an id in use: expected alreadyExists, got \(String(describing: error))")
            return
        }
    }

    @Test func joinIsIdempotentGetNeverJoinsLeaveBothForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel-id")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let repository = ChannelRepository(client: bob)

        let got: LiveObject<Channel> = repository.getChannel("channel-id")  // never joins
        let seen = try await loadedValue(of: got)
        #expect(seen.currentUserMembership == Membership.none)
        #expect(seen.memberCount == 1)
        #expect(!server.members(channelId: "channel-id").contains { $0.userId == "bob" })

        let joined: LiveObject<Channel> = repository.joinChannel("channel-id")  // idempotent
        #expect(try await loadedValue(of: joined).currentUserMembership == .member)
        let joinedAgain = repository.joinChannel("channel-id")
        let twice = try await loadedValue(of: joinedAgain)
        #expect(joinedAgain.error == nil)
        #expect(twice.currentUserMembership == .member)
        #expect(twice.memberCount == 2)
        // The getChannel handle follows the channel.
        for await value in got.values where value?.currentUserMembership == .member { break }

        try await repository.leaveChannel("channel-id")
        #expect(!server.members(channelId: "channel-id").contains { $0.userId == "bob" })
        for await value in got.values where value?.currentUserMembership == Membership.none { break }

        _ = try await loadedValue(of: repository.joinChannel("channel-id"))
        repository.leaveChannel("channel-id", withCompletion: nil)
        #expect(await eventually { !server.members(channelId: "channel-id").contains { $0.userId == "bob" } })

        let outcome = await withCheckedContinuation { continuation in
            repository.leaveChannel("missing") { success, error in
                continuation.resume(returning: (success, error as? ChatError))
            }
        }
        #expect(!outcome.0)
        guard case .notFound = outcome.1 else {
            Issue.record("leaving a missing channel: expected notFound, got \(String(describing: outcome.1))")
            return
        }
    }

    @Test func channelUpdateBuilder() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setId("channel-id")
        _ = try await repository.createChannel(with: builder)

        let updater = ChannelUpdateBuilder(channelId: "channel-id", client: client)
        updater.setDisplayName("Channel Amity")
        updater.setMetadata(["hello": "world"])
        let updated: LiveObject<Channel> = updater.update()
        for await value in updated.values where value?.displayName == "Channel Amity" { break }
        #expect(updated.snapshot?.metadata["hello"] == "world")
        #expect(server.channel("channel-id")?.displayName == "Channel Amity")

        let second = ChannelUpdateBuilder(channelId: "channel-id", client: client)
        second.setMetadata(["hello": "again"])
        let channel: Channel = try await repository.updateChannel(with: second)
        #expect(channel.metadata == ["hello": "again"])  // replaced as a whole
        #expect(channel.displayName == "Channel Amity")
    }

    @Test func channelFieldsAndTypes() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("fields")
        let channel = try await ChannelRepository(client: client).createChannel(with: builder)
        let channelId: String = channel.channelId
        _ = channel.isDistinct
        let metadata: [String: JSON] = channel.metadata
        let type: ChannelType = channel.type
        let tags: [String] = channel.tags
        _ = channel.isMuted
        _ = channel.isRateLimited
        _ = channel.rateLimit
        let displayName: String? = channel.displayName
        _ = channel.memberCount
        _ = channel.messageCount
        _ = channel.lastActivity
        _ = channel.createdAt
        _ = channel.updatedAt
        _ = channel.avatarFileId
        _ = channel.isDeleted
        _ = channel.unreadCount
        _ = channel.hasMention
        let membership: Membership = channel.currentUserMembership
        _ = channel.lastMessageAt
        #expect(channelId == "fields")
        #expect(metadata.isEmpty)  // empty when unset
        #expect(type == .community)
        #expect(tags.isEmpty)
        #expect(displayName == nil)
        #expect(membership == .member)
        #expect(channel.lastMessageAt == nil)
        #expect(channel.isDeleted == false)
        #expect(channel.unreadCount == 0)
        #expect(channel.hasMention == false)
        #expect(channel.memberCount == 1)
        #expect(channel.messageCount == 0)
        #expect(channel.isMuted == false)
        #expect(channel.isRateLimited == false)

        for type in [ChannelType.standard, .private, .conversation, .broadcast, .community, .live] {
            switch type {
            case .standard, .private, .conversation, .broadcast, .community, .live: break
            }
        }
        for membership in [Membership.none, .member, .banned] {
            switch membership {
            case .none, .member, .banned: break
            }
        }
        for status in [DataStatus.notExist, .local, .fresh, .error] {
            switch status {
            case .notExist, .local, .fresh, .error: break
            }
        }
        for status in [LoadingStatus.notLoading, .loading, .loaded, .error] {
            switch status {
            case .notLoading, .loading, .loaded, .error: break
            }
        }
    }

    @Test func jsonLiteralsAccessorsAndSubscripts() throws {
        let json: JSON = ["name": "ops", "count": 3, "ratio": 1.5, "on": true, "none": nil, "list": [1, "two", false]]
        #expect(json["name"]?.stringValue == "ops")
        #expect(json["count"]?.numberValue == 3)
        #expect(json["ratio"]?.numberValue == 1.5)
        #expect(json["on"]?.boolValue == true)
        #expect(json["none"] == .null)
        #expect(json["missing"] == nil)
        #expect(json["list"]?[1]?.stringValue == "two")
        #expect(json["list"]?[2]?.boolValue == false)
        #expect(json["list"]?[9] == nil)
        #expect(json["name"]?.numberValue == nil)
        #expect(json["count"]?.stringValue == nil)
        let cases: [JSON] = [.null, .bool(true), .number(2), .string("s"), .array([.null]), .object(["k": .null])]
        for value in cases {
            switch value {
            case .null, .bool(_), .number(_), .string(_), .array(_), .object(_): break
            }
        }
        #expect(Set(cases).count == 6)  // Hashable
        requireSendableEquatable(JSON.self)
        let decoded = try JSONDecoder().decode(JSON.self, from: JSONEncoder().encode(json))  // Codable
        #expect(decoded == json)
        let fromText = try JSONDecoder().decode(JSON.self, from: Data(#"{"a":[1,"x",true,null]}"#.utf8))
        #expect(fromText == ["a": [1, "x", true, nil]])
        let metadata: [String: JSON] = ["sdk_type": "ios", "nested": ["deep": 1]]
        #expect(metadata["nested"]?["deep"]?.numberValue == 1)
    }

    // MARK: Channel queries

    @Test func theSevenQueryBuildersWithTheSeedsLabels() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        for type in [ChannelType.standard, .private, .broadcast] {
            try await server.createChannel(type: type, channelId: type.rawValue, displayName: nil, userIds: ["alice"])
        }
        let repository = ChannelRepository(client: alice)
        let community = CommunityChannelBuilder()
        community.setId("community")
        community.setTags(["a"])
        _ = try await repository.createChannel(with: community)
        let bobs = CommunityChannelBuilder()
        bobs.setId("bobs")
        _ = try await ChannelRepository(client: bob).createChannel(with: bobs)
        let live = LiveChannelBuilder()
        live.setId("live")
        _ = try await repository.createChannel(with: live)
        let conversation = ConversationChannelBuilder()
        conversation.setId("conversation")
        conversation.setUserIds(["bob"])
        let conversationId = try await repository.createChannel(with: conversation).channelId

        let builder = ByTypesChannelQueryBuilder(
            types: [.standard, .private],
            channelQueryFilter: .all, includingTags: ["a"], excludingTags: ["b"], includeDeleted: false)
        let channels: LiveCollection<Channel> = repository.getChannels().byTypes(with: builder).query()
        #expect(try await loadedIds(channels) == [])  // none of them is tagged "a"
        let byTypes = ByTypesChannelQueryBuilder(
            types: Set<ChannelType>([.standard, .private]), channelQueryFilter: .all, includingTags: nil,
            excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().byTypes(with: byTypes).query()) == ["private", "standard"])

        let standard = StandardChannelQueryBuilder(
            channelQueryFilter: .userIsMember, includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().standardType(with: standard).query()) == ["standard"])
        let privateBuilder = PrivateChannelQueryBuilder(includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().privateType(with: privateBuilder).query()) == ["private"])
        let broadcast = BroadcastChannelQueryBuilder(
            channelQueryFilter: .all, includingTags: [], excludingTags: [], includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().broadcast(with: broadcast).query()) == ["broadcast"])
        let conversations = ConversationChannelQueryBuilder(includingTags: nil, excludingTags: nil)
        #expect(try await loadedIds(repository.getChannels().conversation(with: conversations).query()) == [conversationId])
        let conversationsAgain = ConversationChannelQueryBuilder(includingTags: [], excludingTags: [], includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().conversation(with: conversationsAgain).query()) == [conversationId])
        let liveBuilder = LiveChannelQueryBuilder(includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().liveType(with: liveBuilder).query()) == ["live"])

        // ChannelQueryFilter: .all, .userIsMember, .userIsNotMember.
        let filters: [ChannelQueryFilter: Set<String>] = [
            .all: ["bobs", "community"], .userIsMember: ["community"], .userIsNotMember: ["bobs"],
        ]
        for (filter, expected) in filters {
            let query = repository.getChannels().communityType(
                with: CommunityChannelQueryBuilder(filter: filter, includingTags: nil, excludingTags: nil, includeDeleted: false)
            ).query()
            #expect(try await loadedIds(query) == expected, "\(filter)")
        }
        // The README's short form (defaults for the rest).
        let mine = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).query()
        #expect(try await loadedIds(mine) == ["community"])
    }

    @Test func tagConstraintsAndDeletedChannels() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        let tagged: [String: [String]] = ["t-a": ["a"], "t-b": ["b"], "t-ab": ["a", "b"], "t-none": []]
        for (id, tags) in tagged {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setTags(tags)
            _ = try await repository.createChannel(with: builder)
        }
        func list(_ including: [String]?, _ excluding: [String]?, deleted: Bool = false) async throws -> Set<String> {
            try await loadedIds(
                repository.getChannels().communityType(
                    with: CommunityChannelQueryBuilder(
                        filter: .all, includingTags: including, excludingTags: excluding, includeDeleted: deleted)
                ).query())
        }
        let all: Set<String> = ["t-a", "t-b", "t-ab", "t-none"]
        #expect(try await list(nil, nil) == all)
        #expect(try await list([], []) == all)  // empty = no constraint
        #expect(try await list(["a", "b"], nil) == ["t-a", "t-b", "t-ab"])  // any of
        #expect(try await list(nil, ["a", "b"]) == ["t-none"])  // none of
        #expect(try await list(["a"], ["b"]) == ["t-a"])

        try await server.deleteChannel("t-none")
        // includeDeleted defaults to false.
        let byDefault = try await loadedIds(
            repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query())
        #expect(byDefault == ["t-a", "t-b", "t-ab"])
        #expect(try await list(nil, nil, deleted: false) == ["t-a", "t-b", "t-ab"])
        #expect(try await list(nil, nil, deleted: true) == all)
        let byTypes = ByTypesChannelQueryBuilder(
            types: [.community], channelQueryFilter: .all, includingTags: nil, excludingTags: nil)
        #expect(try await loadedIds(repository.getChannels().byTypes(with: byTypes).query()) == ["t-a", "t-b", "t-ab"])
    }

    @Test func channelListQuerySnippetFiltersAndSorts() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for (id, state, client) in [("la1", "LA", alice), ("la2", "LA", alice), ("ny", "NY", alice), ("la-bob", "LA", bob)] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setMetadata(["state": .string(state)])
            _ = try await ChannelRepository(client: client).createChannel(with: builder)
        }
        let liveBuilder = LiveChannelBuilder()
        liveBuilder.setId("la-live")
        liveBuilder.setMetadata(["state": "LA"])
        _ = try await repository.createChannel(with: liveBuilder)
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "la1", text: "hi", mentionedUserIds: [])

        let query = ChannelListQuery(
            filter: .and([
                .containMembers(userIds: ["alice"]), .equal(.type, to: .community),
                .equal("state", to: "LA"),
            ]),  // a string key is a metadata field
            sort: [Sorting(key: .lastMessageAt, isAscending: false)],
            pageSize: 20)
        let list: LiveCollection<Channel> = repository.getChannels(query: query)
        for await update in list.updates where update.loadingStatus == .loaded { break }
        #expect(list.error == nil)
        // la1 has a message; la2 has none (missing: smallest, so last when descending).
        #expect(ids(list.snapshots) == ["la1", "la2"])

        // The live list follows changes: a message in la2 moves it first.
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "la2", text: "hi", mentionedUserIds: [])
        for await update in list.updates where ids(update.snapshots) == ["la2", "la1"] { break }

        for key in [ChannelSortingKey.default, .createdAt, .updatedAt, .lastMessageAt, .memberCount] {
            for ascending in [true, false] {
                let sorted = repository.getChannels(
                    query: ChannelListQuery(filter: .equal(.type, to: .community), sort: [Sorting(key: key, isAscending: ascending)], pageSize: 20))
                for await update in sorted.updates where update.loadingStatus != .loading && update.dataStatus != .notExist {
                    break
                }
                #expect(sorted.error == nil, "\(key)")
                #expect(Set(ids(sorted.snapshots)) == ["la1", "la2", "ny", "la-bob"], "\(key)")
            }
        }
    }

    @Test func missingValuesSortSmallestAndTiesBreakByChannelId() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        for (id, score) in [("c", nil), ("a", 2), ("d", nil), ("b", 1), ("e", 1)] as [(String, Int?)] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            if let score { builder.setMetadata(["score": .number(Double(score))]) }
            _ = try await repository.createChannel(with: builder)
        }
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "b", text: "hi", mentionedUserIds: [])
        func sorted(_ key: ChannelSortingKey, ascending: Bool) async throws -> [String] {
            let list = repository.getChannels(
                query: ChannelListQuery(filter: .equal(.type, to: .community), sort: [Sorting(key: key, isAscending: ascending)], pageSize: 20))
            for await update in list.updates where update.loadingStatus == .loaded && update.snapshots.count == 5 { break }
            return ids(list.snapshots)
        }
        // Absent metadata is smaller than every value; ties (nil/nil, 1/1) by channelId ascending.
        #expect(try await sorted(.metadata("score"), ascending: true) == ["c", "d", "b", "e", "a"])
        #expect(try await sorted(.metadata("score"), ascending: false) == ["a", "b", "e", "c", "d"])
        // nil lastMessageAt is smaller than every date.
        #expect(try await sorted(.lastMessageAt, ascending: true) == ["a", "c", "d", "e", "b"])
        #expect(try await sorted(.lastMessageAt, ascending: false) == ["b", "a", "c", "d", "e"])
        // updatedAt: the channel updated last comes first when descending.
        let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
        updater.setDisplayName("C")
        _ = try await repository.updateChannel(with: updater)
        #expect(try await sorted(.updatedAt, ascending: false).first == "c")
        #expect(try await sorted(.createdAt, ascending: true) == ["c", "a", "d", "b", "e"])
        #expect(try await sorted(.default, ascending: false).first == "b")  // b has the only message
        // Equal member counts: channelId ascending whatever the direction.
        #expect(try await sorted(.memberCount, ascending: false) == ["a", "b", "c", "d", "e"])
    }

    // MARK: Participation, moderation, permissions

    @Test func participationMembersAndBothForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        for user in ["bob", "carol", "user1", "user2", "user3"] {
            try await server.registerUser(id: user, displayName: user.capitalized, isAdmin: false)
        }
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let participation = ChannelParticipation(client: alice, channelId: "channel1")
        let members: LiveCollection<ChannelMember> =
            participation.getMembers(filter: .all, sortBy: .firstCreated, roles: [])
        try await participation.addMembers(["bob"])
        try await participation.addMembers(["carol"])
        for await update in members.updates where ids(update.snapshots) == ["alice", "bob", "carol"] { break }
        let newest = participation.getMembers(filter: .all, sortBy: .lastCreated, roles: [])
        for await update in newest.updates where update.loadingStatus == .loaded { break }
        #expect(ids(newest.snapshots) == ["carol", "bob", "alice"])
        let moderators = participation.getMembers(filter: .all, sortBy: .firstCreated, roles: ["moderator"])
        for await update in moderators.updates where update.loadingStatus == .loaded { break }
        #expect(ids(moderators.snapshots) == ["alice"])

        func isMember(_ id: String) -> Bool { server.members(channelId: "channel1").contains { $0.userId == id } }
        try await participation.addMembers(["user1", "user2"])
        #expect(isMember("user1") && isMember("user2"))
        try await participation.removeMembers(["user1", "user2"])
        #expect(!isMember("user1") && !isMember("user2"))
        participation.addMembers(["user1", "user2"], completion: nil)
        for await update in members.updates where ids(update.snapshots) == ["alice", "bob", "carol", "user1", "user2"] { break }
        try await participation.addMembers(["user3"])
        #expect(isMember("user3"))
        try await participation.removeMembers(["user3"])
        #expect(!isMember("user3"))
        try await participation.addMembers(["user3"])
        participation.removeMembers(["user3"], completion: nil)
        #expect(await eventually { !isMember("user3") })
        participation.removeMembers(["user2"], completion: nil)
        for await update in members.updates where !ids(update.snapshots).contains("user2") { break }

        let added = await withCheckedContinuation { continuation in
            participation.addMembers(["user2"]) { success, error in continuation.resume(returning: (success, error == nil)) }
        }
        #expect(added == (true, true))
        let removed = await withCheckedContinuation { continuation in
            participation.removeMembers(["user2"]) { success, error in continuation.resume(returning: (success, error == nil)) }
        }
        #expect(removed == (true, true))
        let failed = await withCheckedContinuation { continuation in
            ChannelParticipation(client: alice, channelId: "missing").addMembers(["bob"]) { success, error in
                continuation.resume(returning: (success, error is ChatError))
            }
        }
        #expect(failed == (false, true))

        let moderation = ChannelModeration(client: alice, channelId: "channel1")
        let muted = participation.getMembers(filter: .mute, sortBy: .firstCreated, roles: [])
        let banned = participation.getMembers(filter: .ban, sortBy: .firstCreated, roles: [])
        try await moderation.muteMembers(["bob"], mutePeriod: 600)
        try await moderation.banMembers(["carol"])
        for await update in muted.updates where ids(update.snapshots) == ["bob"] { break }
        for await update in banned.updates where ids(update.snapshots) == ["carol"] { break }
        for await update in members.updates where !ids(update.snapshots).contains("carol") { break }
        #expect(muted.object(at: 0)?.isMuted == true)
        #expect(banned.object(at: 0)?.membership == .banned)
    }

    @Test func moderationCalls() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        try await server.registerUser(id: "u", displayName: "U", isAdmin: false)
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob", "u"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let moderation = ChannelModeration(client: alice, channelId: "channel1")
        func member(_ id: String) -> ChannelMember? { server.members(channelId: "channel1").first { $0.userId == id } }

        try await moderation.banMembers(["u"])
        #expect(member("u")?.membership == .banned)
        try await moderation.unbanMembers(["u"])
        #expect(member("u")?.membership != .banned)
        try await ChannelParticipation(client: alice, channelId: "channel1").addMembers(["u"])

        try await moderation.muteMembers(["u"], mutePeriod: 600)
        #expect(member("u")?.isMuted == true)
        try await moderation.unmuteMembers(["u"])
        #expect(member("u")?.isMuted == false)

        try await moderation.addRole("moderator", userIds: ["u"])
        #expect(member("u")?.roles.contains("moderator") == true)
        try await moderation.removeRole("moderator", userIds: ["u"])
        #expect(member("u")?.roles.contains("moderator") == false)

        try await moderation.setRateLimit(period: 600, limit: 1, window: 60)  // seconds
        #expect(server.channel("channel1")?.isRateLimited == true)
        let messages = MessageRepository(client: bob)
        _ = try await messages.sendMessage(channelId: "channel1", text: "one", mentionedUserIds: [])
        let error = await thrownChatError {
            _ = try await messages.sendMessage(channelId: "channel1", text: "two", mentionedUserIds: [])
        }
        guard case .rateLimited = error else {
            Issue.record("over the rate limit: expected rateLimited, got \(String(describing: error))")
            return
        }
        try await moderation.removeRateLimit()
        #expect(server.channel("channel1")?.isRateLimited == false)
        _ = try await messages.sendMessage(channelId: "channel1", text: "two", mentionedUserIds: [])
        try await moderation.setRateLimit(period: 600, limit: 5, window: 60)  // seconds
        #expect(server.channel("channel1")?.isRateLimited == true)
        #expect(server.channel("channel1")?.rateLimit == 5)
        try await moderation.removeRateLimit()
        try await moderation.setRateLimit(period: -1, limit: 5, window: 60)  // period -1 = permanent
        #expect(server.channel("channel1")?.isRateLimited == true)
        #expect(server.channel("channel1")?.rateLimit == 5)
        try await moderation.removeRateLimit()

        // Only moderators moderate.
        let forbidden = await thrownChatError {
            try await ChannelModeration(client: bob, channelId: "channel1").banMembers(["u"])
        }
        guard case .forbidden = forbidden else {
            Issue.record("a member banning: expected forbidden, got \(String(describing: forbidden))")
            return
        }
    }

    @Test func permissions() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let allowed: Bool = try await alice.hasPermission(.editChannel, forChannel: "channel1")
        #expect(allowed)  // the creator moderates
        for permission in [Permission.editChannel, .sendMessage, .addMember, .removeMember, .banMember, .muteMember] {
            #expect(try await alice.hasPermission(permission, forChannel: "channel1"), "\(permission)")
        }
        #expect(try await bob.hasPermission(.sendMessage, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.editChannel, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.banMember, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.muteMember, forChannel: "channel1"))
        try await ChannelModeration(client: alice, channelId: "channel1").muteMembers(["bob"], mutePeriod: 600)
        #expect(try await !bob.hasPermission(.sendMessage, forChannel: "channel1"))
    }

    @Test func readingPlainAndAsyncForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let channelObject = ChannelRepository(client: alice).getChannel("channel1")
        let participation = ChannelParticipation(client: alice, channelId: "channel1")
        let bobMessages = MessageRepository(client: bob)

        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "1", mentionedUserIds: [])
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "2", mentionedUserIds: [])
        for await value in channelObject.values where value?.unreadCount == 2 { break }

        Self.startReadingFireAndForget(participation)  // the plain form
        for await value in channelObject.values where value?.unreadCount == 0 { break }
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "3", mentionedUserIds: [])
        for await value in channelObject.values where value?.lastMessageAt != nil && value?.messageCount == 3 { break }
        #expect(channelObject.snapshot?.unreadCount == 0)  // the marker follows while reading

        Self.stopReadingFireAndForget(participation)
        try await participation.stopReading()  // from async code, ordered after the plain call
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "4", mentionedUserIds: [])
        for await value in channelObject.values where value?.unreadCount == 1 { break }
        #expect(server.unreadCount(userId: "alice", channelId: "channel1") == 1)

        try await participation.startReading()
        for await value in channelObject.values where value?.unreadCount == 0 { break }
        #expect(server.unreadCount(userId: "alice", channelId: "channel1") == 0)
        try await participation.stopReading()
    }

    private nonisolated static func startReadingFireAndForget(_ participation: ChannelParticipation) {
        participation.startReading()  // fire-and-forget
    }

    private nonisolated static func stopReadingFireAndForget(_ participation: ChannelParticipation) {
        participation.stopReading()  // likewise
    }

    // MARK: Messages and unread counts

    @Test func messagesAndUnreadCounts() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for id in ["c1", "c2"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setUserIds(["bob"])
            _ = try await repository.createChannel(with: builder)
        }
        let outside = CommunityChannelBuilder()
        outside.setId("outside")
        _ = try await ChannelRepository(client: bob).createChannel(with: outside)

        let messages = MessageRepository(client: alice)
        let message: Message = try await messages.sendMessage(channelId: "c1", text: "hi", mentionedUserIds: [])
        #expect(message.channelId == "c1")
        #expect(message.userId == "alice")
        #expect(message.text == "hi")
        let list: LiveCollection<Message> = messages.getMessages(channelId: "c1")
        for await update in list.updates where update.snapshots.contains(where: { $0.messageId == message.messageId }) {
            break
        }
        #expect(list.snapshots.last == message)

        let channelObject = repository.getChannel("c1")
        let total: LiveObject<Int> = repository.getTotalUnreadCount()  // a derived live value
        let bobMessages = MessageRepository(client: bob)
        _ = try await bobMessages.sendMessage(channelId: "c1", text: "a", mentionedUserIds: ["alice"])
        _ = try await bobMessages.sendMessage(channelId: "c1", text: "b", mentionedUserIds: [])
        for text in ["c", "d", "e"] {
            _ = try await bobMessages.sendMessage(channelId: "c2", text: text, mentionedUserIds: [])
        }
        _ = try await bobMessages.sendMessage(channelId: "outside", text: "not mine", mentionedUserIds: [])
        for await value in total.values where value == 5 { break }
        let sum: Int = repository.totalUnreadCount  // Int
        #expect(sum == 5)  // over c1 (2) and c2 (3); not "outside", which alice is not a member of
        #expect(total.snapshot == sum)
        for await value in channelObject.values where value?.unreadCount == 2 { break }
        #expect(channelObject.snapshot?.unreadCount == 2)
        #expect(channelObject.snapshot?.hasMention == true)
        let c2 = try await loadedValue(of: repository.getChannel("c2"))
        let seen = try await loadedValue(of: repository.getChannel("outside"))
        #expect(c2.unreadCount + (channelObject.snapshot?.unreadCount ?? 0) == repository.totalUnreadCount)
        #expect(seen.currentUserMembership == Membership.none)
        #expect(repository.totalUnreadCount == 5)
        #expect(server.totalUnreadCount(userId: "alice") == 5)

        try await ChannelParticipation(client: alice, channelId: "c2").startReading()
        for await value in total.values where value == 2 { break }
        #expect(repository.totalUnreadCount == 2)

        // A channel this client never fetched counts as soon as alice is a member.
        let added = CommunityChannelBuilder()
        added.setId("c3")
        added.setUserIds(["alice"])
        _ = try await ChannelRepository(client: bob).createChannel(with: added)
        for text in ["f", "g", "h", "i"] {
            _ = try await bobMessages.sendMessage(channelId: "c3", text: text, mentionedUserIds: [])
        }
        for await value in total.values where value == 6 { break }
        #expect(repository.totalUnreadCount == 6)

        // Another device's repository has the total once connected.
        let tablet = try await connectedClient(server, "alice", deviceId: "tablet")
        #expect(ChannelRepository(client: tablet).totalUnreadCount == 6)

        // Leaving a channel takes its unread messages out of the total.
        try await repository.leaveChannel("c1")
        for await value in total.values where value == 4 { break }
        #expect(repository.totalUnreadCount == 4)
        #expect(server.totalUnreadCount(userId: "alice") == 4)
    }

    // MARK: Model fields

    @Test func modelFieldsIdentifiableAndEquatable() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let user: User = try await server.registerUser(id: "bob", displayName: "Bob", isAdmin: false)
        let userId: String = user.userId
        #expect(userId == "bob")
        #expect(user.displayName == "Bob")
        #expect(user.id == user.userId)

        let builder = CommunityChannelBuilder()
        builder.setId("c1")
        builder.setUserIds(["bob"])
        let channel = try await ChannelRepository(client: alice).createChannel(with: builder)
        #expect(channel.id == channel.channelId)

        let members = ChannelParticipation(client: alice, channelId: "c1").getMembers(filter: .all, sortBy: .firstCreated, roles: [])
        for await update in members.updates where update.snapshots.count == 2 { break }
        let member = try #require(members.object(at: 0))
        let memberUserId: String = member.userId
        let memberChannelId: String = member.channelId
        let roles: [String] = member.roles
        let isMuted: Bool = member.isMuted
        #expect(memberUserId == "alice")
        #expect(memberChannelId == "c1")
        #expect(roles.contains("moderator"))
        #expect(!isMuted)
        #expect(member.membership == channel.currentUserMembership)  // the same type
        #expect(member.membership == .member)
        #expect(member.id == member.userId)

        let message = try await MessageRepository(client: alice).sendMessage(
            channelId: "c1", text: "hi @bob", mentionedUserIds: ["bob"])
        let messageId: String = message.messageId
        let messageChannelId: String = message.channelId
        let messageUserId: String = message.userId
        let text: String = message.text
        let mentioned: [String] = message.mentionedUserIds
        let createdAt: Date = message.createdAt
        #expect(!messageId.isEmpty)
        #expect(messageChannelId == "c1")
        #expect(messageUserId == "alice")
        #expect(text == "hi @bob")
        #expect(mentioned == ["bob"])
        #expect(createdAt.timeIntervalSince1970 > 0)
        #expect(message.id == message.messageId)

        let permissions: [Permission] = [.editChannel, .sendMessage, .addMember, .removeMember, .banMember, .muteMember]
        #expect(Set(permissions).count == 6)

        requireIdentifiableEquatable(Channel.self)
        requireIdentifiableEquatable(ChannelMember.self)
        requireIdentifiableEquatable(Message.self)
        requireIdentifiableEquatable(User.self)
        // A LiveCollection of them diffs by id.
        var renamed = channel
        renamed.displayName = "Renamed"
        let diff = CollectionChange(from: [channel], to: [renamed])
        #expect(diff.modifications == [0] && diff.insertions.isEmpty && diff.deletions.isEmpty)
    }

    // MARK: Errors

    @Test func chatErrorCasesAndDescriptions() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        var caught: [ChatError] = []

        // notFound
        let notFound = await thrownChatError { try await repository.leaveChannel("missing") }
        guard case .notFound = notFound else {
            Issue.record("expected notFound, got \(String(describing: notFound))")
            return
        }
        caught.append(notFound!)

        // alreadyExists
        let builder = CommunityChannelBuilder()
        builder.setId("taken")
        _ = try await repository.createChannel(with: builder)
        let alreadyExists = await thrownChatError { _ = try await repository.createChannel(with: builder) }
        guard case .alreadyExists = alreadyExists else {
            Issue.record("expected alreadyExists, got \(String(describing: alreadyExists))")
            return
        }
        caught.append(alreadyExists!)

        // notAllowed: a conversation cannot be left.
        let conversation = ConversationChannelBuilder()
        conversation.setUserIds(["bob"])
        let conversationId = try await repository.createChannel(with: conversation).channelId
        let notAllowed = await thrownChatError { try await repository.leaveChannel(conversationId) }
        guard case .notAllowed = notAllowed else {
            Issue.record("expected notAllowed, got \(String(describing: notAllowed))")
            return
        }
        caught.append(notAllowed!)

        // forbidden: sending to a broadcast channel.
        try await server.createChannel(type: .broadcast, channelId: "news", displayName: "News", userIds: ["alice"])
        let forbidden = await thrownChatError {
            _ = try await MessageRepository(client: alice).sendMessage(channelId: "news", text: "hi", mentionedUserIds: [])
        }
        guard case .forbidden = forbidden else {
            Issue.record("expected forbidden, got \(String(describing: forbidden))")
            return
        }
        caught.append(forbidden!)

        // invalidArgument, naming the field.
        let invalid = await thrownChatError { _ = try await repository.createChannel(with: ConversationChannelBuilder()) }
        guard case .invalidArgument(let field, _) = invalid else {
            Issue.record("expected invalidArgument, got \(String(describing: invalid))")
            return
        }
        #expect(field == "userIds")
        caught.append(invalid!)

        // limitExceeded: metadata over 100 KB.
        let big = CommunityChannelBuilder()
        big.setMetadata(["blob": .string(String(repeating: "x", count: 101 * 1024))])
        let limit = await thrownChatError { _ = try await repository.createChannel(with: big) }
        guard case .limitExceeded = limit else {
            Issue.record("expected limitExceeded, got \(String(describing: limit))")
            return
        }
        caught.append(limit!)

        // rateLimited: a member over the channel's rate limit.
        let club = CommunityChannelBuilder()
        club.setId("club")
        club.setUserIds(["bob"])
        _ = try await repository.createChannel(with: club)
        try await ChannelModeration(client: alice, channelId: "club").setRateLimit(period: 600, limit: 1, window: 60)
        let bobMessages = MessageRepository(client: bob)
        _ = try await bobMessages.sendMessage(channelId: "club", text: "one", mentionedUserIds: [])
        let rateLimited = await thrownChatError {
            _ = try await bobMessages.sendMessage(channelId: "club", text: "two", mentionedUserIds: [])
        }
        guard case .rateLimited = rateLimited else {
            Issue.record("expected rateLimited, got \(String(describing: rateLimited))")
            return
        }
        caught.append(rateLimited!)

        // unavailable: a client that is not connected.
        let offline = ChatClient(transport: server.connection(userId: "alice", deviceId: "offline"))
        let unavailable = await thrownChatError {
            _ = try await ChannelRepository(client: offline).createChannel(with: CommunityChannelBuilder())
        }
        guard case .unavailable = unavailable else {
            Issue.record("expected unavailable, got \(String(describing: unavailable))")
            return
        }
        caught.append(unavailable!)

        for error in caught {
            let sentence = error.description
            #expect(sentence == "\(error)")
            #expect(sentence.first?.isUppercase == true, "\(sentence)")
            #expect(sentence.hasSuffix("."), "\(sentence)")
            #expect(sentence.split(separator: " ").count >= 4, "\(sentence)")
        }
        // The details are in the sentence.
        #expect(ChatError.invalidArgument(field: "userIds", reason: "x").description.contains("userIds"))
        #expect(ChatError.rateLimited(retryAfter: 30).description.contains("30"))
        #expect(caught.count == 8)
        let thrown: any Error = ChatError.notFound("channel 'x'")
        #expect(thrown is ChatError)
    }

    @Test func anUnreachableServerIsUnavailable() async throws {
        let server = ChatServer()
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        // Never connected.
        let error = await thrownChatError {
            _ = try await ChannelRepository(client: client).createChannel(with: CommunityChannelBuilder())
        }
        guard case .unavailable = error else {
            Issue.record("a request without a connection: expected unavailable, got \(String(describing: error))")
            return
        }
    }

    // MARK: Synchronous calls, handles and the client's lifetime

    /// Calls that return a live handle are synchronous, with no `async` overload under the same
    /// name and labels: from an `async` context, each compiles without `await` and without a
    /// type annotation steering overload resolution (an `async` overload would be preferred here
    /// and fail to compile without `await`).
    @Test func liveHandleCallsAreSynchronousFromAsyncCode() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: client)
        let x: LiveObject<Channel> = repository.getChannel("id")
        let get = repository.getChannel("id")
        let join = repository.joinChannel("id")
        let community = CommunityChannelBuilder()
        let created = repository.createChannel().community(with: community)
        let liveCreated = repository.createChannel().live(with: LiveChannelBuilder())
        let conversationBuilder = ConversationChannelBuilder()
        conversationBuilder.setUserIds(["bob"])
        let conversation = repository.createChannel().conversation(with: conversationBuilder)
        let conversation2 = repository.createConversation(with: conversationBuilder)
        let updater = ChannelUpdateBuilder(channelId: "id", client: client)
        updater.setDisplayName("n")
        let updated = updater.update()
        let members = ChannelParticipation(client: client, channelId: "id").getMembers(filter: .all, sortBy: .firstCreated, roles: [])
        let queried = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query()
        let listed = repository.getChannels(query: ChannelListQuery(filter: .equal(.type, to: .community), sort: [Sorting(key: .default, isAscending: false)], pageSize: 20))
        let total = repository.getTotalUnreadCount()
        let messages = MessageRepository(client: client).getMessages(channelId: "id")
        let objects: [LiveObject<Channel>] = [x, get, join, created, liveCreated, conversation, conversation2, updated]
        let _: LiveCollection<ChannelMember> = members
        let _: LiveCollection<Channel> = queried
        let _: LiveCollection<Channel> = listed
        let _: LiveObject<Int> = total
        let _: LiveCollection<Message> = messages
        for object in objects {
            for await _ in object.values where object.loadingStatus != .loading { break }
        }
        #expect(created.snapshot?.type == .community)
        #expect(conversation.snapshot?.channelId == conversation2.snapshot?.channelId)
    }

    @Test func discardingTheHandleDoesNotCancelTheRequest() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("lobby")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        do {
            // Everything dropped at once: handle, repository and client.
            let bob = try await connectedClient(server, "bob")
            _ = ChannelRepository(client: bob).joinChannel("lobby")
            let created = CommunityChannelBuilder()
            created.setId("made-by-bob")
            _ = ChannelRepository(client: bob).createChannel().community(with: created)
        }
        #expect(await eventually { server.members(channelId: "lobby").contains { $0.userId == "bob" } })
        #expect(await eventually { server.channel("made-by-bob") != nil })

        let updater = ChannelUpdateBuilder(channelId: "lobby", client: alice)
        updater.setDisplayName("Lobby")
        _ = updater.update()
        #expect(await eventually { server.channel("lobby")?.displayName == "Lobby" })
    }

    @Test func liveHandlesAndRepositoriesKeepTheirClientAlive() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("room")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let makers: [(String, @Sendable (ChatClient) -> AnyObject)] = [
            ("repository", { ChannelRepository(client: $0) }),
            ("participation", { ChannelParticipation(client: $0, channelId: "room") }),
            ("moderation", { ChannelModeration(client: $0, channelId: "room") }),
            ("messages", { MessageRepository(client: $0) }),
            ("getChannel", { ChannelRepository(client: $0).getChannel("room") }),
            ("joinChannel", { ChannelRepository(client: $0).joinChannel("room") }),
            ("update", {
                let updater = ChannelUpdateBuilder(channelId: "room", client: $0)
                updater.setDisplayName("Room")
                return updater.update()
            }),
            ("query", { ChannelRepository(client: $0).getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query() }),
            ("getChannels", { ChannelRepository(client: $0).getChannels(query: ChannelListQuery(filter: .equal(.type, to: .community))) }),
            ("getMembers", { ChannelParticipation(client: $0, channelId: "room").getMembers(filter: .all, sortBy: .firstCreated, roles: []) }),
            ("getMessages", { MessageRepository(client: $0).getMessages(channelId: "room") }),
            ("getTotalUnreadCount", { ChannelRepository(client: $0).getTotalUnreadCount() }),
        ]
        for (index, (name, make)) in makers.enumerated() {
            weak var weakClient: ChatClient?
            var handle: AnyObject?
            do {
                let client = try await connectedClient(server, "alice", deviceId: "device-\(index)")
                weakClient = client
                handle = make(client)
            }
            // Once the handle's own request is answered, only the handle holds the client.
            #expect(await eventually { requestSettled(handle) }, "\(name) settles")
            #expect(weakClient != nil, "\(name) keeps its client alive")
            withExtendedLifetime(handle) {}
            handle = nil
            #expect(await eventually { weakClient == nil }, "\(name): nothing else keeps the client")
        }

        // A handle whose client is otherwise gone keeps following the channel.
        var object: LiveObject<Channel>?
        do {
            let client = try await connectedClient(server, "alice", deviceId: "last")
            object = ChannelRepository(client: client).getChannel("room")
        }
        let handle = try #require(object)
        _ = try await loadedValue(of: handle)
        let updater = ChannelUpdateBuilder(channelId: "room", client: alice)
        updater.setDisplayName("Followed")
        _ = try await ChannelRepository(client: alice).updateChannel(with: updater)
        for await value in handle.values where value?.displayName == "Followed" { break }
        object = nil
    }
}

// MARK: - Helpers (distinct names: the test target shares one module)

/// A lock-guarded list of what callbacks saw, readable from any thread.
private final class Log<Item: Sendable>: @unchecked Sendable {
    /// Guards `items`.
    private let lock = NSLock()
    private var items: [Item] = []

    func append(_ item: Item) { lock.withLock { items.append(item) } }
    var all: [Item] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

/// Whether code runs on the main queue, where the main actor runs (`Thread.isMainThread` is not
/// reliable under `swift test` on Linux).
private enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Marks the main queue; call before observing.
    static func prepare() { _ = key }
}

/// A class that is not `Sendable`.
private final class Note: Equatable {
    var text: String
    init(_ text: String) { self.text = text }
    static func == (lhs: Note, rhs: Note) -> Bool { lhs.text == rhs.text }
}

/// An Identifiable & Equatable element that is not `Sendable`.
private struct PlainRow: Identifiable, Equatable {
    var id: Int
    var note: Note
}

/// An Identifiable & Equatable element that is not a chat model.
private struct Row: Identifiable, Equatable, Sendable {
    var id: String
    var text: String
}

private func connectedClient(_ server: ChatServer, _ userId: String, deviceId: String = "phone") async throws -> ChatClient {
    let client = ChatClient(transport: server.connection(userId: userId, deviceId: deviceId))
    try await client.connect()
    return client
}

/// The value of `object` once it is no longer loading; throws its error if it has no value.
private func loadedValue(of object: LiveObject<Channel>) async throws -> Channel {
    for await _ in object.values where object.loadingStatus != .loading { break }
    if let error = object.error { throw error }
    return try #require(object.snapshot)
}

/// The ids of a channel list once its first page is loaded.
private func loadedIds(_ list: LiveCollection<Channel>) async throws -> Set<String> {
    for await update in list.updates where update.loadingStatus != .loading && update.dataStatus != .notExist { break }
    if let error = list.error { throw error }
    return Set(ids(list.snapshots))
}

private func ids<Element: Identifiable>(_ elements: [Element]) -> [Element.ID] { elements.map(\.id) }

/// The `ChatError` `body` throws, or `nil` when it succeeds (another error is recorded).
private func thrownChatError(_ body: () async throws -> Void) async -> ChatError? {
    do {
        try await body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        Issue.record("not a ChatError: \(error)")
        return nil
    }
}

/// Checks `condition` after each turn of the other tasks until it holds, giving up after
/// 10 s (a bound for a failing test, not a wait a passing test depends on).
private func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Whether a live handle's request has been answered (repositories have none).
private func requestSettled(_ handle: AnyObject?) -> Bool {
    switch handle {
    case let object as LiveObject<Channel>: object.loadingStatus != .loading
    case let object as LiveObject<Int>: object.loadingStatus != .loading
    case let list as LiveCollection<Channel>: list.loadingStatus != .loading
    case let list as LiveCollection<ChannelMember>: list.loadingStatus != .loading
    case let list as LiveCollection<Message>: list.loadingStatus != .loading
    default: true
    }
}

/// Waits for `semaphore` without blocking a cooperative thread.
private func wait(for semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

private func requireSendableEquatable<T: Sendable & Equatable>(_: T.Type) {}
private func requireIdentifiableEquatable<T: Identifiable & Equatable>(_: T.Type) where T.ID == String {}

/// `change` applied to `old` as a UIKit batch update would (contents of inserted, modified and
/// modified-moved elements taken from `new`); `nil` when the change does not fit.
private func apply<Element: Identifiable & Equatable>(_ change: CollectionChange, to old: [Element], new: [Element]) -> [Element]? {
    guard old.count - change.deletions.count + change.insertions.count == new.count,
        change.modifications.count == change.modificationsInNew.count
    else { return nil }
    var result = [Element?](repeating: nil, count: new.count)
    var usedOld = Set<Int>()
    for index in change.insertions {
        guard new.indices.contains(index), result[index] == nil else { return nil }
        result[index] = new[index]
    }
    for move in change.moves {
        guard old.indices.contains(move.from), new.indices.contains(move.to), result[move.to] == nil,
            usedOld.insert(move.from).inserted, old[move.from].id == new[move.to].id
        else { return nil }
        result[move.to] = move.isModified ? new[move.to] : old[move.from]
    }
    for (from, to) in zip(change.modifications, change.modificationsInNew) {
        guard old.indices.contains(from), new.indices.contains(to), result[to] == nil,
            usedOld.insert(from).inserted, old[from].id == new[to].id
        else { return nil }
        result[to] = new[to]
    }
    for index in change.deletions {
        guard old.indices.contains(index), usedOld.insert(index).inserted else { return nil }
    }
    let stayers = old.indices.filter { !usedOld.contains($0) }
    let free = result.indices.filter { result[$0] == nil }
    guard stayers.count == free.count else { return nil }
    for (from, to) in zip(stayers, free) { result[to] = old[from] }
    return result.map { $0! }
}

/// A UI-style consumer: main-actor state updated from observer callbacks with the default context.
@MainActor private final class ChannelScreen {
    private var title = ""
    private var rows = 0
    private var onceCalls = 0
    private var tokens: [NotificationToken] = []

    var state: (title: String, rows: Int, onceCalls: Int) { (title, rows, onceCalls) }

    func show(_ object: LiveObject<Channel>, _ list: LiveCollection<Channel>) {
        tokens.append(object.observe { object, _ in self.title = object.snapshot?.displayName ?? "" })
        tokens.append(list.observe { list, _, _ in self.rows = list.count })
        object.observeOnce { object, _ in
            self.onceCalls += 1
            self.title = object.snapshot?.displayName ?? self.title
        }
    }

    func stop() {
        for token in tokens { token.invalidate() }
    }
}
