import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import LiveCore
import TestSupport
import Testing

/// The device's outbox (`MessageRepository.createMessage`): a message shows at once, is sent
/// once connected in creation order, becomes synced in place, and is never lost nor doubled.
@Suite(.timeLimit(.minutes(2))) struct MessageOutboxTests {
    let server = ChatServer()

    /// A client of `userId` that is not connected yet.
    func offlineClient(_ userId: String, file: URL? = nil) -> ChatClient {
        ChatClient(
            transport: server.connection(userId: userId, deviceId: "phone"),
            persistence: file.map { .sqlite($0) } ?? .inMemory, reconnectPolicy: .immediate)
    }

    func makeChannel(_ id: String = "c1", members: [String] = ["alice", "bob"]) async throws {
        for member in members { try await server.registerUser(id: member) }
        try await server.createChannel(type: .community, channelId: id, userIds: members)
    }

    /// The messages the server stored in `channelId`, as `userId` reads them.
    func stored(_ channelId: String = "c1", as userId: String = "bob") async throws -> [Message] {
        let reader = ChatClient(transport: server.connection(userId: userId, deviceId: "reader-\(UUID())"))
        try await reader.connect()
        defer { Task { await reader.close() } }
        return await MessageRepository(client: reader).getMessages(channelId: channelId, pageSize: 100).loaded()
            .snapshots
    }

    @Test func aMessageCreatedOfflineShowsAtOnceAndIsSyncedInPlaceOnceConnected() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        let repository = MessageRepository(client: alice)
        let list = repository.getMessages(channelId: "c1")
        let local = try repository.createMessage(channelId: "c1", text: "from the tunnel")
        #expect(local.syncState == .syncing && local.sequence == 0 && local.userId == "alice")
        #expect(list.snapshots.map(\.messageId) == [local.messageId])
        #expect(list.snapshots.first?.syncState == .syncing)
        #expect(repository.unsentMessages.map(\.messageId) == [local.messageId])

        try await alice.connect()
        #expect(await eventually { list.snapshots.first?.syncState == .synced })
        #expect(list.snapshots.map(\.messageId) == [local.messageId])
        #expect(list.snapshots.first?.sequence == 1)
        #expect(repository.unsentMessages.isEmpty)
        #expect(try await stored().map(\.messageId) == [local.messageId])
        // Never unread for its sender.
        #expect(ChannelRepository(client: alice).getChannel("c1").snapshot?.unreadCount ?? 0 == 0)
        await alice.close()
    }

    /// Online, the row shows as syncing and is then modified in place: one insertion (the local
    /// row), then modifications only — never a deletion.
    @Test func theAcknowledgedRowIsModifiedInPlace() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        let repository = MessageRepository(client: alice)
        let list = await repository.getMessages(channelId: "c1").loaded()
        try await MessageRepository(client: alice).sendMessage(channelId: "c1", text: "before", mentionedUserIds: [])
        let changes = Recorder<CollectionChange>()
        let token = list.observe(on: .synchronous) { _, change, _ in
            if let change { changes.append(change) }
        }
        defer { token.invalidate() }
        let local = try repository.createMessage(channelId: "c1", text: "mine")
        #expect(list.snapshots.map(\.messageId).last == local.messageId)
        #expect(await eventually { list.snapshots.last?.syncState == .synced })
        #expect(list.snapshots.map(\.sequence) == [1, 2])
        // One insertion (changes delivered late may be composed into it), never a deletion or
        // a move: the same row, modified.
        let recorded = changes.values
        #expect(recorded.first?.insertions == [1])
        #expect(recorded.allSatisfy { $0.deletions.isEmpty && $0.moves.isEmpty })
        #expect(recorded.filter { !$0.insertions.isEmpty }.count == 1)
        await alice.close()
    }

    @Test func localMessagesStayAfterTheNewestStoredOneAndAreSentInCreationOrder() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        let repository = MessageRepository(client: alice)
        let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "phone"))
        try await bob.connect()
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "c1", text: "b1", mentionedUserIds: [])
        let texts = (1...5).map { "a\($0)" }
        for text in texts { try repository.createMessage(channelId: "c1", text: text) }
        let list = repository.getMessages(channelId: "c1")
        try await alice.connect()
        #expect(await eventually { list.snapshots.count == 6 && list.snapshots.allSatisfy { $0.syncState == .synced } })
        #expect(list.snapshots.map(\.text) == ["b1"] + texts)
        #expect(list.snapshots.map(\.sequence) == Array(1...6))
        #expect(try await stored().map(\.text) == ["b1"] + texts)
        await alice.close()
        await bob.close()
    }

    /// The answer is lost after the server stored the message: the outbox sends it again with
    /// the same id after the reconnect, and the server answers the stored message.
    @Test func aSendWhoseAnswerIsLostIsStoredExactlyOnce() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        let repository = MessageRepository(client: alice)
        let list = await repository.getMessages(channelId: "c1").loaded()
        server.faults.dropAfterNext(userId: "alice", deviceId: "phone")
        let local = try repository.createMessage(channelId: "c1", text: "once")
        #expect(await eventually { list.snapshots.first?.syncState == .synced })
        #expect(await eventually { alice.connectionState.snapshot == .connected })
        #expect(list.snapshots.map(\.messageId) == [local.messageId])
        let stored = try await stored()
        #expect(stored.map(\.messageId) == [local.messageId] && stored.map(\.sequence) == [1])
        await alice.close()
    }

    /// `sendMessage` keeps its contract (returns once stored) and cannot double either.
    @Test func sendMessageRetriedAfterALostAnswerIsStoredOnce() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        server.faults.dropAfterNext(userId: "alice", deviceId: "phone")
        let sent = try await MessageRepository(client: alice).sendMessage(
            channelId: "c1", text: "once", mentionedUserIds: [])
        #expect(sent.sequence == 1 && sent.syncState == .synced)
        #expect(try await stored().map(\.messageId) == [sent.messageId])
        await alice.close()
    }

    @Test func transientFailuresAreRetriedByThemselves() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        server.faults.failNext(2, with: .unavailable("write timed out"), userId: "alice")
        let local = try MessageRepository(client: alice).createMessage(channelId: "c1", text: "eventually")
        let list = MessageRepository(client: alice).getMessages(channelId: "c1")
        #expect(await eventually { list.snapshots.first?.syncState == .synced })
        #expect(try await stored().map(\.messageId) == [local.messageId])
        await alice.close()
    }

    /// A server's `retryAfter` is waited within reason: NaN not at all, a number no `Duration`
    /// holds at most an hour, and a new connection sends at once (the outbox trapped on both).
    @Test func aServersRetryAfterNeverTrapsTheOutbox() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        let messages = MessageRepository(client: alice)
        let list = messages.getMessages(channelId: "c1")
        _ = await list.loaded()
        func state(of message: Message) -> MessageSyncState? {
            list.snapshots.first { $0.messageId == message.messageId }?.syncState
        }
        server.faults.failNext(1, with: .rateLimited(retryAfter: .nan), userId: "alice")
        let first = try messages.createMessage(channelId: "c1", text: "after nan")
        #expect(await eventually { state(of: first) == .synced })
        server.faults.failNext(1, with: .rateLimited(retryAfter: 1e300), userId: "alice")
        let second = try messages.createMessage(channelId: "c1", text: "after 1e300")
        #expect(await eventually { alice.outbox.isWaitingToRetry }, "refused, and waiting as the server asked")
        #expect(state(of: second) == .syncing)
        await alice.disconnect()
        try await alice.connect()
        #expect(await eventually { state(of: second) == .synced })
        #expect(try await stored().map(\.text) == ["after nan", "after 1e300"])
        await alice.close()
    }

    /// A rule failure parks the message as failed (nothing retried forever); later messages go
    /// on; a resend after the rule is lifted stores it; a discard removes it everywhere.
    @Test func aBannedUsersMessageFailsUntilResentOrDiscarded() async throws {
        try await server.registerUser(id: "mod", isAdmin: true)
        try await makeChannel()
        try await makeChannel("c2")
        let mod = ChatClient(transport: server.connection(userId: "mod", deviceId: "phone"))
        try await mod.connect()
        let moderation = ChannelModeration(client: mod, channelId: "c1")
        _ = try await moderation.muteMembers(["alice"], mutePeriod: -1)

        let alice = offlineClient("alice")
        try await alice.connect()
        let repository = MessageRepository(client: alice)
        let list = repository.getMessages(channelId: "c1")
        let muted = try repository.createMessage(channelId: "c1", text: "can you hear me")
        let elsewhere = try repository.createMessage(channelId: "c2", text: "over here")
        #expect(
            await eventually {
                list.snapshots.first?.syncState.isLocal == true && list.snapshots.first?.syncState != .syncing
            })
        guard case .failed(.forbidden) = list.snapshots.first?.syncState else {
            Issue.record("expected .failed(.forbidden), got \(String(describing: list.snapshots.first?.syncState))")
            return
        }
        #expect(try await stored("c2").map(\.messageId) == [elsewhere.messageId])
        #expect(try await stored("c1").isEmpty)
        #expect(repository.unsentMessages.map(\.messageId) == [muted.messageId])

        _ = try await moderation.unmuteMembers(["alice"])
        try await repository.resendMessage(channelId: "c1", messageId: muted.messageId)
        #expect(list.snapshots.first?.syncState != nil)
        #expect(await eventually { list.snapshots.first?.syncState == .synced })
        #expect(try await stored("c1").map(\.messageId) == [muted.messageId])
        await #expect(throws: ChatError.self) {
            try await repository.resendMessage(channelId: "c1", messageId: muted.messageId)
        }

        _ = try await moderation.muteMembers(["alice"], mutePeriod: -1)
        let second = try repository.createMessage(channelId: "c1", text: "again")
        #expect(
            await eventually {
                list.snapshots.last.map { if case .failed = $0.syncState { true } else { false } } == true
            })
        try await repository.discardMessage(channelId: "c1", messageId: second.messageId)
        #expect(list.snapshots.map(\.messageId) == [muted.messageId])
        #expect(repository.unsentMessages.isEmpty)
        await #expect(throws: ChatError.self) {
            try await repository.discardMessage(channelId: "c1", messageId: second.messageId)
        }
        await alice.close()
        await mod.close()
    }

    /// A banned user's message ends `.failed(.forbidden)` after one try: a rule failure is never
    /// retried by itself (not after a backoff, not after a reconnect).
    @Test func aBannedUsersMessageFailsOnceAndIsNotRetried() async throws {
        try await makeChannel()
        let sends = Recorder<String>()
        let alice = ChatClient(
            transport: InterceptingTransport(
                server.connection(userId: "alice", deviceId: "phone"),
                hooks: .init(beforeSend: { request in
                    if case .sendMessage(let draft) = request { sends.append(draft.messageId ?? "") }
                })),
            reconnectPolicy: .immediate)
        try await alice.connect()
        let mod = ChatClient(transport: server.connection(userId: "mod", deviceId: "phone"))
        try await server.registerUser(id: "mod", isAdmin: true)
        try await mod.connect()
        _ = try await ChannelModeration(client: mod, channelId: "c1").banMembers(["alice"])
        let repository = MessageRepository(client: alice)
        let local = try repository.createMessage(channelId: "c1", text: "let me in")
        #expect(await eventually { repository.unsentMessages.first?.syncState != .syncing })
        guard case .failed(.forbidden) = repository.unsentMessages.first?.syncState else {
            Issue.record("expected .failed(.forbidden): \(repository.unsentMessages)")
            return
        }
        // The sender woken (what a backoff's end does) and a reconnect: still one try.
        alice.outbox.wake()
        await alice.disconnect()
        try await alice.connect()
        await alice.synchronize()
        #expect(sends.values == [local.messageId])
        #expect(try await stored().isEmpty)
        await alice.close()
        await mod.close()
    }

    @Test func badArgumentsAreRefusedOnTheDeviceAndAClosedClientCreatesNothing() async throws {
        let alice = offlineClient("alice")
        let repository = MessageRepository(client: alice)
        #expect(throws: ChatError.invalidArgument(field: "text", reason: "must not be empty")) {
            try repository.createMessage(channelId: "c1", text: "")
        }
        #expect(throws: ChatError.self) { try repository.createMessage(channelId: " c1", text: "x") }
        #expect(throws: ChatError.self) { try repository.createMessage(channelId: "c1", text: "x", messageId: "a b") }
        let chosen = try repository.createMessage(channelId: "c1", text: "x", messageId: "mine-1")
        #expect(chosen.messageId == "mine-1")
        #expect(throws: ChatError.self) {
            try repository.createMessage(channelId: "c1", text: "y", messageId: "mine-1")
        }
        await alice.close()
        #expect(throws: ChatClient.closedError) { try repository.createMessage(channelId: "c1", text: "late") }
    }

    /// Created offline, the app restarted on its file while still offline, more created, then
    /// connected: every message is on the server once, in creation order.
    @Test func theOutboxSurvivesARestartOnTheCacheFile() async throws {
        try await makeChannel()
        let directory = TemporaryDirectory()
        let file = directory.file()
        let first: Message
        do {
            let alice = offlineClient("alice", file: file)
            first = try MessageRepository(client: alice).createMessage(channelId: "c1", text: "one")
            try MessageRepository(client: alice).createMessage(channelId: "c1", text: "two")
            await alice.close()
        }
        let alice = offlineClient("alice", file: file)
        let repository = MessageRepository(client: alice)
        let list = repository.getMessages(channelId: "c1")
        #expect(list.snapshots.map(\.text) == ["one", "two"])
        #expect(list.snapshots.allSatisfy { $0.syncState == .syncing })
        #expect(list.snapshots.first?.messageId == first.messageId)
        try repository.createMessage(channelId: "c1", text: "three")
        #expect(list.snapshots.map(\.text) == ["one", "two", "three"])
        try await alice.connect()
        #expect(await eventually { list.snapshots.count == 3 && list.snapshots.allSatisfy { $0.syncState == .synced } })
        #expect(try await stored().map(\.text) == ["one", "two", "three"])
        #expect(try await stored().first?.messageId == first.messageId)
        await alice.flushPersistence()
        await alice.close()

        // Synced rows are ordinary cached messages now: a next start sends nothing again.
        let again = offlineClient("alice", file: file)
        #expect(MessageRepository(client: again).unsentMessages.isEmpty)
        try await again.connect()
        await again.synchronize()
        #expect(try await stored().count == 3)
        await again.close()
    }

    /// The outbox is the user's, not a cache: a server whose history started over (another
    /// epoch) gets it, and `clearPersistence()` keeps it.
    @Test func theOutboxOutlivesAnotherServerHistoryAndClearingTheCache() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        try await makeChannel()
        do {
            let alice = server.persistentClient("alice", file: file)
            try await alice.connect()
            await alice.synchronize()
            await alice.disconnect()
            try MessageRepository(client: alice).createMessage(channelId: "c1", text: "kept")
            try await alice.clearPersistence()
            await alice.close()
        }
        // Another server (a new epoch), with the same channel.
        let other = ChatServer()
        for user in ["alice", "bob"] { try await other.registerUser(id: user) }
        try await other.createChannel(type: .community, channelId: "c1", userIds: ["alice", "bob"])
        let alice = other.persistentClient("alice", file: file)
        let repository = MessageRepository(client: alice)
        #expect(repository.unsentMessages.map(\.text) == ["kept"])
        try await alice.connect()
        #expect(await eventually { other.messages(channelId: "c1").map(\.text) == ["kept"] })
        #expect(await eventually { repository.unsentMessages.isEmpty })
        let list = await repository.getMessages(channelId: "c1").loaded()
        #expect(await eventually { list.snapshots.map(\.syncState) == [.synced] })
        await alice.close()
    }

    /// A client that keeps no message in memory beyond what is shown evicts the stored ones, but
    /// never its outbox's: a list opened later shows them.
    @Test func localMessagesAreNeverEvictedFromMemory() async throws {
        try await makeChannel()
        try await makeChannel("elsewhere", members: ["bob"])  // alice is no member: her message fails
        let alice = ChatClient(
            transport: server.connection(userId: "alice", deviceId: "phone"), reconnectPolicy: .immediate,
            messageRetention: 0)
        try await alice.connect()
        let repository = MessageRepository(client: alice)
        let local = try repository.createMessage(channelId: "elsewhere", text: "let me in")
        #expect(
            await eventually {
                repository.unsentMessages.first.map { $0.syncState.isLocal && $0.syncState != .syncing } == true
            })
        for index in 0..<60 { try await server.sendMessage(as: "bob", channelId: "c1", text: "m\(index)") }
        await alice.synchronize()
        #expect(alice.sync.messages.count < 60, "stored messages nobody shows were evicted")
        #expect(alice.sync.messages.entity(local.messageId)?.isLocal == true)
        let list = repository.getMessages(channelId: "elsewhere")
        #expect(list.snapshots.map(\.messageId) == [local.messageId])
        await alice.close()
    }

    @Test @MainActor func streamsCreateNewMessageGoesThroughTheOutbox() async throws {
        try await makeChannel()
        let alice = offlineClient("alice")
        try await alice.connect()
        let controller = alice.channelController(for: "c1")
        try await controller.synchronize()
        await alice.disconnect()
        let id = try await withCheckedThrowingContinuation { continuation in
            controller.createNewMessage(text: "offline hello") { continuation.resume(with: $0) }
        }
        #expect(controller.messages.first { $0.messageId == id }?.syncState == .syncing)
        try await alice.connect()
        #expect(await eventually { controller.messages.first { $0.messageId == id }?.syncState == .synced })
        #expect(try await stored().map(\.messageId) == [id])
        await #expect(throws: ChatError.self) { try await controller.resendMessage(messageId: id) }

        // Refused (muted), then resent through the controller once the mute is lifted.
        try await server.registerUser(id: "mod", isAdmin: true)
        let mod = ChatClient(transport: server.connection(userId: "mod", deviceId: "phone"))
        try await mod.connect()
        let moderation = ChannelModeration(client: mod, channelId: "c1")
        _ = try await moderation.muteMembers(["alice"], mutePeriod: -1)
        await alice.synchronize()
        let refused = try await withCheckedThrowingContinuation { continuation in
            controller.createNewMessage(text: "hush") { continuation.resume(with: $0) }
        }
        func state() -> MessageSyncState? { controller.messages.first { $0.messageId == refused }?.syncState }
        _ = await eventually { state() != .syncing }
        guard case .failed(.forbidden) = state() else {
            Issue.record("expected .failed(.forbidden), got \(String(describing: state()))")
            return
        }
        _ = try await moderation.unmuteMembers(["alice"])
        try await controller.resendMessage(messageId: refused)
        #expect(await eventually { state() == .synced })
        #expect(try await stored().map(\.messageId) == [id, refused])
        await mod.close()
        await alice.close()
    }
}
