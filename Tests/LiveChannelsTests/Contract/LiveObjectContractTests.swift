import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for live objects: observing (in each delivery context,
/// once), their statuses and errors, invalidating a token, and default callbacks on the main actor.
/// Snippet by snippet, written as a user's app would write it: only `import LiveChannels` and
/// `import ChatServer`, no `@testable`. Every name, label and shape pinned there must compile here,
/// and every behaviour stated there is asserted. The helpers the contract suites share are in
/// `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct LiveObjectContractTests {

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
}

// MARK: - Helpers

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
