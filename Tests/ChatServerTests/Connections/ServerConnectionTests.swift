import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct ServerConnectionTests {
    @Test func usersAreRegisteredOnFirstConnect() async throws {
        let server = ChatServer(clock: ManualClock())
        #expect(server.user("zoe") == nil)
        var zoe = TestDevice(server, "zoe", "tablet")
        // A transport is not a connect: the user is registered by the attach, on every node alike.
        #expect(server.user("zoe") == nil)
        let result = try await zoe.connect()
        #expect(server.user("zoe") != nil)
        #expect(result.currentUser.userId == "zoe" && result.status == .new && result.lastSequence == 0)
        #expect(zoe.deviceId == "tablet")
    }

    @Test func invalidIdsCannotConnect() async throws {
        let server = ChatServer(clock: ManualClock())
        var nameless = TestDevice(server, "")
        await #expect(throws: ChatError.invalidArgument(field: "userId", reason: "must not be empty")) {
            try await nameless.connect()
        }
        var badDevice = TestDevice(server, "zoe", "a\u{1}")
        await #expect(throws: ChatError.self) { try await badDevice.connect() }
    }

    @Test func requestsBeforeConnectAreUnavailable() async throws {
        let server = ChatServer(clock: ManualClock())
        let device = TestDevice(server, "zoe")
        await #expect(throws: ChatError.self) { try await device.send(.getUser(userId: "zoe")) }
    }

    @Test func clientsCannotCreateConsoleOnlyTypes() async throws {
        let (server, _) = try await makeServer()
        var alice = TestDevice(server, "alice")
        try await alice.connect()
        for type in [ChannelType.broadcast, .standard, .private] {
            do {
                try await alice.send(.createChannel(ChannelDraft(type: type)))
                Issue.record("\(type) was created")
            } catch let error as ChatError {
                guard case .notAllowed(let reason) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(reason.contains("console"))
            }
        }
        let news = try await server.createChannel(
            type: .broadcast, channelId: "news", displayName: "News", userIds: ["alice"])
        #expect(news.type == .broadcast && news.memberCount == 1)
    }

    @Test func hasPermissionRequestAnswersWhatEnforcementDoes() async throws {
        let (server, _) = try await makeServer()
        var alice = TestDevice(server, "alice")
        var bob = TestDevice(server, "bob")
        try await alice.connect()
        try await bob.connect()
        try await server.createChannel(type: .broadcast, channelId: "news", userIds: ["alice", "bob"])
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for (device, channelId, permission, expected) in [
            (alice, "c", Permission.editChannel, true), (bob, "c", .editChannel, false),
            (bob, "c", .sendMessage, true), (bob, "news", .sendMessage, false),
            (alice, "c", .banMember, true), (bob, "c", .banMember, false),
        ] {
            let answer = try await device.send(.hasPermission(permission, channelId: channelId)).boolValue
            #expect(answer == expected, "\(device.userId) \(permission) in \(channelId)")
        }
        await #expect(throws: ChatError.self) {
            try await bob.send(.sendMessage(MessageDraft(channelId: "news", text: "x")))
        }
        try await server.sendMessage(as: "boss", channelId: "news", text: "announcement")
        #expect(server.unreadCount(userId: "bob", channelId: "news") == 1)
    }

    @Test func memberOperationsAnswerWithTheMemberRecords() async throws {
        let (server, _) = try await makeServer()
        var alice = TestDevice(server, "alice")
        try await alice.connect()
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c")))
        let added = try await alice.send(.addMembers(channelId: "c", userIds: ["bob", "carol"])).membersValue
        #expect(added?.map(\.userId) == ["bob", "carol"] && added?.allSatisfy { $0.membership == .member } == true)
        let roles = try await alice.send(.addRole("moderator", channelId: "c", userIds: ["bob"])).membersValue
        #expect(roles?.first?.roles == ["moderator"])
        let removed = try await alice.send(.removeMembers(channelId: "c", userIds: ["carol"])).membersValue
        #expect(removed?.first?.membership == Membership.none)
        await #expect(throws: ChatError.invalidArgument(field: "userIds", reason: "unknown user 'ghost'")) {
            try await alice.send(.addMembers(channelId: "c", userIds: ["ghost"]))
        }
    }

    @Test func messagesArePagedBySequence() async throws {
        let (server, _) = try await makeServer()
        var alice = TestDevice(server, "alice")
        try await alice.connect()
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c")))
        for index in 1...7 { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "\(index)"))) }
        let latest = try await alice.send(.queryMessages(MessagePageQuery(channelId: "c", limit: 3))).messagesValue
        #expect(
            latest?.messages.map(\.sequence) == [5, 6, 7] && latest?.hasPrevious == true && latest?.hasNext == false)
        let before = try await alice.send(
            .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: 5), limit: 3))
        ).messagesValue
        #expect(before?.messages.map(\.text) == ["2", "3", "4"])
        var carol = TestDevice(server, "carol")
        try await carol.connect()
        await #expect(throws: ChatError.self) { try await carol.send(.queryMessages(MessagePageQuery(channelId: "c"))) }
    }

    @Test func usersAreSearchedByDisplayNamePrefix() async throws {
        let (server, _) = try await makeServer()
        try await server.registerUser(id: "alicia", displayName: "Álicia")
        var bob = TestDevice(server, "bob")
        try await bob.connect()
        let page = try await bob.send(.searchUsers(UserSearchQuery(displayNamePrefix: "ali", pageSize: 1), after: nil))
            .usersValue
        #expect(page?.items.map(\.userId) == ["alice"] && page?.hasNext == true)
        let next = try await bob.send(
            .searchUsers(UserSearchQuery(displayNamePrefix: "ali", pageSize: 1), after: page?.next)
        ).usersValue
        #expect(next?.items.map(\.userId) == ["alicia"] && next?.hasNext == false)
        let me = try await bob.send(.updateCurrentUser(displayName: "Robert", metadata: ["team": "ios"])).userValue
        #expect(me?.displayName == "Robert" && server.user("bob")?.metadata == ["team": "ios"])
    }
}
