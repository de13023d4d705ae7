import ChatAPI
import ChatServer
import Foundation
import Testing

/// One kind of bad input: how to send it (through a connection's request path or the console)
/// and the exact error case (with its field) it must get.
struct BadInput: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: String
    let attempt: @Sendable (BadInputScene) async throws -> Void

    init(_ name: String, _ expected: String, _ attempt: @escaping @Sendable (BadInputScene) async throws -> Void) {
        self.name = name
        self.expected = expected
        self.attempt = attempt
    }

    var testDescription: String { name }
}

/// The scene every bad input is tried in: community channel "c" (alice moderates, bob is a
/// member, carol is not), conversation "dm" (alice and bob), alice's message "message-1", and
/// a device of alice's that has disconnected.
struct BadInputScene: Sendable {
    let server: ChatServer
    let alice: any ChatTransport
    let bob: any ChatTransport
    let carol: any ChatTransport
    let gone: any ChatTransport

    static let devices = [("alice", "default"), ("bob", "default"), ("carol", "default"), ("alice", "gone")]

    static func make() async throws -> BadInputScene {
        let room = try await Room.make(drained: true)
        let carol = try await connected(room.server, "carol")
        let gone = try await connected(room.server, "alice", "gone")
        await gone.transport.disconnect()
        try await room.server.createChannel(type: .conversation, channelId: "dm", userIds: ["alice", "bob"])
        try await room.aliceSays("first")
        return BadInputScene(
            server: room.server, alice: room.alice.transport, bob: room.bob.transport, carol: carol.transport,
            gone: gone.transport)
    }
}

@Suite struct BadInputTableTests {
    static let longId = String(repeating: "i", count: InputLimits.maxIdLength + 1)
    static let bigMetadata: [String: JSON] = [
        "big": .string(String(repeating: "x", count: InputLimits.maxMetadataBytes))
    ]
    static let deepMetadata: [String: JSON] = ["deep": deepJSON(3_000)]
    static let zalgo = "e" + String(repeating: "\u{301}", count: 100_000)
    static let deepFilter: Filter = {
        var filter: Filter = .equal(.type, to: .community)
        for _ in 0..<10_000 { filter = .and([filter]) }
        return filter
    }()

    static func community(_ draft: ChannelDraft) -> ChatRequest { .createChannel(draft) }
    static func query(_ filter: Filter = .all, sort: [Sorting] = [.default], pageSize: Int = 20) -> ChatRequest {
        .queryChannels(ChannelListQuery(filter: filter, sort: sort, pageSize: pageSize), after: nil)
    }
    static func says(
        _ text: String, mentions: [String] = [], metadata: [String: JSON] = [:], in channelId: String = "c"
    ) -> ChatRequest {
        .sendMessage(MessageDraft(channelId: channelId, text: text, mentionedUserIds: mentions, metadata: metadata))
    }

    static let table: [BadInput] = [
        // Ids
        .init("empty channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "")))
        },
        .init("white-space channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "  ")))
        },
        .init("untrimmed channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "x ")))
        },
        .init("bidi override in channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "a\u{202E}b")))
        },
        .init("zero-width in channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "a\u{200B}b")))
        },
        .init("non-NFC channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "cafe\u{301}")))
        },
        .init("too long channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: longId)))
        },
        .init("control character in channel id", "invalidArgument(channelId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "a\u{7}")))
        },
        .init("channel id in use", "alreadyExists") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, channelId: "c")))
        },
        .init("broadcast created by a client", "notAllowed") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .broadcast)))
        },
        .init("conversation with nobody else", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .conversation, userIds: ["alice"])))
        },
        .init("unknown user in a new channel", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, userIds: ["ghost"])))
        },
        .init("white-space user id", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, userIds: [" "])))
        },
        .init("1,001 user ids", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(
                community(ChannelDraft(type: .community, userIds: (0...1_000).map { "u\($0)" })))
        },
        .init("zero-width avatar id", "invalidArgument(avatarFileId)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, avatarFileId: "\u{2060}")))
        },
        .init("bidi user id in getUser", "invalidArgument(userId)") {
            _ = try await $0.alice.send(.getUser(userId: "b\u{2066}ob"))
        },
        .init("bidi message id", "invalidArgument(messageId)") {
            _ = try await $0.alice.send(.deleteMessage(channelId: "c", messageId: "m\u{202D}"))
        },
        // Names and tags
        .init("display name too long", "invalidArgument(displayName)") {
            _ = try await $0.alice.send(
                community(ChannelDraft(type: .community, displayName: String(repeating: "n", count: 257))))
        },
        .init("control character in display name", "invalidArgument(displayName)") {
            _ = try await $0.alice.send(.updateChannel(ChannelChanges(channelId: "c", displayName: "a\u{0}b")))
        },
        .init("21 tags", "invalidArgument(tags)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, tags: (0...20).map { "t\($0)" })))
        },
        .init("empty tag", "invalidArgument(tags)") {
            _ = try await $0.alice.send(.updateChannel(ChannelChanges(channelId: "c", tags: [""])))
        },
        .init("user display name with stacked marks", "invalidArgument(displayName)") {
            _ = try await $0.alice.send(
                .updateCurrentUser(displayName: "e" + String(repeating: "\u{301}", count: 40), metadata: nil))
        },
        // Metadata
        .init("channel metadata 3,000 deep", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, metadata: deepMetadata)))
        },
        .init("channel metadata NaN", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, metadata: ["n": .number(.nan)])))
        },
        .init("updated metadata infinite", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(
                .updateChannel(ChannelChanges(channelId: "c", metadata: ["n": [.number(.infinity)]])))
        },
        .init("updated metadata over 100 KB", "limitExceeded") {
            _ = try await $0.alice.send(.updateChannel(ChannelChanges(channelId: "c", metadata: bigMetadata)))
        },
        .init("created metadata over 100 KB", "limitExceeded") {
            _ = try await $0.alice.send(community(ChannelDraft(type: .community, metadata: bigMetadata)))
        },
        .init("user metadata NaN", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(.updateCurrentUser(displayName: nil, metadata: ["n": .number(-.infinity)]))
        },
        .init("user metadata 3,000 deep", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(.updateCurrentUser(displayName: nil, metadata: deepMetadata))
        },
        .init("message metadata 3,000 deep", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(says("hi", metadata: deepMetadata))
        },
        .init("message metadata NaN", "invalidArgument(metadata)") {
            _ = try await $0.alice.send(says("hi", metadata: ["n": .number(.nan)]))
        },
        .init("message metadata over 100 KB", "limitExceeded") {
            _ = try await $0.alice.send(says("hi", metadata: bigMetadata))
        },
        // Filters, sorts, page sizes
        .init("filter 10,000 deep", "invalidArgument(filter)") { _ = try await $0.alice.send(query(deepFilter)) },
        .init("filter operand NaN", "invalidArgument(metadata.score)") {
            _ = try await $0.alice.send(query(.equal("score", to: .number(.nan))))
        },
        .init("filter operand 3,000 deep", "invalidArgument(metadata.x)") {
            _ = try await $0.alice.send(query(.equal("x", to: deepJSON(3_000))))
        },
        .init("empty or", "invalidArgument($or)") { _ = try await $0.alice.send(query(.or([]))) },
        .init("unknown channel type", "invalidArgument(type)") {
            _ = try await $0.alice.send(query(.condition(.type, .equal("nope"))))
        },
        .init("comparison on a Boolean", "invalidArgument(isMuted)") {
            _ = try await $0.alice.send(query(.condition(.isMuted, .greater(true))))
        },
        .init("empty metadata sort path", "invalidArgument(sort)") {
            _ = try await $0.alice.send(query(sort: [Sorting(key: .metadata(""))]))
        },
        .init("page size 0", "invalidArgument(pageSize)") { _ = try await $0.alice.send(query(pageSize: 0)) },
        .init("page size 101", "invalidArgument(pageSize)") { _ = try await $0.alice.send(query(pageSize: 101)) },
        .init("member page size 0", "invalidArgument(pageSize)") {
            _ = try await $0.alice.send(.queryMembers(MemberListQuery(channelId: "c", pageSize: 0), after: nil))
        },
        .init("user search page size 1,000", "invalidArgument(pageSize)") {
            _ = try await $0.alice.send(
                .searchUsers(UserSearchQuery(displayNamePrefix: "a", pageSize: 1_000), after: nil))
        },
        .init("message page limit 0", "invalidArgument(limit)") {
            _ = try await $0.alice.send(.queryMessages(MessagePageQuery(channelId: "c", limit: 0)))
        },
        .init("negative message sequence", "invalidArgument(sequence)") {
            _ = try await $0.alice.send(
                .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: -1))))
        },
        // Moderation arguments
        .init("negative mute period", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: -5))
        },
        .init("NaN mute period", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: .nan))
        },
        .init("zero channel mute period", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteChannel(channelId: "c", period: 0))
        },
        .init("muting a moderator (themselves)", "notAllowed") {
            _ = try await $0.alice.send(.muteMembers(channelId: "c", userIds: ["bob", "alice"], period: 10))
        },
        .init("muting a non-member", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(.muteMembers(channelId: "c", userIds: ["carol"], period: 10))
        },
        .init("banning an unknown user", "invalidArgument(userIds)") {
            _ = try await $0.alice.send(.banMembers(channelId: "c", userIds: ["ghost"]))
        },
        .init("ban by a plain member", "forbidden") {
            _ = try await $0.bob.send(.banMembers(channelId: "c", userIds: ["alice"]))
        },
        .init("last moderator bans themselves", "notAllowed") {
            _ = try await $0.alice.send(.banMembers(channelId: "c", userIds: ["alice"]))
        },
        .init("mute period 1e11 (past ten years)", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: 1e11))
        },
        .init("channel mute period 1e11", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteChannel(channelId: "c", period: 1e11))
        },
        .init("channel mute period one past the maximum", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteChannel(channelId: "c", period: InputLimits.maxPeriod + 1))
        },
        .init("infinite channel mute period", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteChannel(channelId: "c", period: .infinity))
        },
        .init("mute period -2", "invalidArgument(period)") {
            _ = try await $0.alice.send(.muteChannel(channelId: "c", period: -2))
        },
        .init("rate-limit period 1e300", "invalidArgument(period)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 1e300, limit: 1, window: 10))
        },
        .init("rate limit of Int.max messages", "invalidArgument(limit)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: .max, window: 10))
        },
        .init("rate limit of -1 messages", "invalidArgument(limit)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: -1, window: 10))
        },
        .init("rate-limit window of two days", "invalidArgument(window)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: 1, window: 172_800))
        },
        .init("NaN rate-limit window", "invalidArgument(window)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: 1, window: .nan))
        },
        .init("message page after Int.max", "invalidArgument(sequence)") {
            _ = try await $0.alice.send(
                .queryMessages(MessagePageQuery(channelId: "c", position: .after(sequence: .max))))
        },
        .init("message page before 2^53 + 1", "invalidArgument(sequence)") {
            _ = try await $0.alice.send(
                .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: (1 << 53) + 1))))
        },
        .init("message page limit Int.min", "invalidArgument(limit)") {
            _ = try await $0.alice.send(.queryMessages(MessagePageQuery(channelId: "c", limit: .min)))
        },
        .init("rate limit of 0", "invalidArgument(limit)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: 0, window: 10))
        },
        .init("infinite rate-limit window", "invalidArgument(window)") {
            _ = try await $0.alice.send(.setRateLimit(channelId: "c", period: 60, limit: 1, window: .infinity))
        },
        .init("empty role", "invalidArgument(role)") {
            _ = try await $0.alice.send(.addRole("", channelId: "c", userIds: ["bob"]))
        },
        .init("moderating a conversation", "notAllowed") {
            _ = try await $0.alice.send(.banMembers(channelId: "dm", userIds: ["bob"]))
        },
        .init("adding to a conversation", "notAllowed") {
            _ = try await $0.alice.send(.addMembers(channelId: "dm", userIds: ["carol"]))
        },
        .init("joining a conversation", "notAllowed") { _ = try await $0.alice.send(.joinChannel(channelId: "dm")) },
        .init("deleting without being an admin", "forbidden") {
            _ = try await $0.alice.send(.deleteChannel(channelId: "c"))
        },
        // Messages and mentions
        .init("empty text", "invalidArgument(text)") { _ = try await $0.alice.send(says("")) },
        .init("10,001 characters", "invalidArgument(text)") {
            _ = try await $0.alice.send(says(String(repeating: "x", count: 10_001)))
        },
        .init("one character with 100,000 marks", "invalidArgument(text)") { _ = try await $0.alice.send(says(zalgo)) },
        .init("over 40,000 bytes", "invalidArgument(text)") {
            _ = try await $0.alice.send(says(String(repeating: "\u{1F1EB}\u{1F1F7}", count: 5_001)))
        },
        .init("control character in text", "invalidArgument(text)") { _ = try await $0.alice.send(says("a\u{1B}b")) },
        .init("sending without membership", "forbidden") { _ = try await $0.carol.send(says("hi")) },
        .init("sending to an unknown channel", "notFound") { _ = try await $0.alice.send(says("hi", in: "nowhere")) },
        .init("mentioning a malformed id", "invalidArgument(mentionedUserIds)") {
            _ = try await $0.alice.send(says("hi", mentions: ["bob", "gh\u{0}ost"]))
        },
        .init("mentioning an empty id", "invalidArgument(mentionedUserIds)") {
            _ = try await $0.alice.send(says("hi", mentions: [""]))
        },
        .init("editing another's message", "forbidden") {
            _ = try await $0.bob.send(
                .editMessage(messageId: "message-1", draft: MessageDraft(channelId: "c", text: "mine")))
        },
        .init("editing an unknown message", "notFound") {
            _ = try await $0.alice.send(
                .editMessage(messageId: "message-99", draft: MessageDraft(channelId: "c", text: "x")))
        },
        // Connections
        .init("request after disconnect", "unavailable") { _ = try await $0.gone.send(says("hi")) },
        .init("connect with a white-space user id", "invalidArgument(userId)") {
            _ = try await $0.server.connection(userId: " ").connect(resumingAfter: nil)
        },
        .init("connect with a zero-width device id", "invalidArgument(deviceId)") {
            _ = try await $0.server.connection(userId: "bob", deviceId: "\u{FEFF}").connect(resumingAfter: nil)
        },
        // Console
        .init("console: channel metadata NaN", "invalidArgument(metadata)") {
            _ = try await $0.server.createChannel(type: .broadcast, metadata: ["n": .number(.nan)])
        },
        .init("console: channel metadata 3,000 deep", "invalidArgument(metadata)") {
            _ = try await $0.server.createChannel(type: .live, metadata: deepMetadata)
        },
        .init("console: update over 100 KB", "limitExceeded") {
            _ = try await $0.server.updateChannel(ChannelChanges(channelId: "c", metadata: bigMetadata))
        },
        .init("console: channel id in use", "alreadyExists") {
            _ = try await $0.server.createChannel(type: .standard, channelId: "c")
        },
        .init("console: white-space user id", "invalidArgument(userId)") {
            _ = try await $0.server.registerUser(id: " \u{3000}")
        },
        .init("console: bidi user in a new channel", "invalidArgument(userIds)") {
            _ = try await $0.server.createChannel(type: .standard, userIds: ["\u{202A}x"])
        },
        .init("console: adding to a conversation", "notAllowed") {
            _ = try await $0.server.addMembers(["carol"], to: "dm")
        },
        .init("console: message by a non-member", "forbidden") {
            _ = try await $0.server.sendMessage(as: "carol", channelId: "c", text: "hi")
        },
        .init("console: deleting an unknown channel", "notFound") { _ = try await $0.server.deleteChannel("nowhere") },
    ]

    @Test func theTableHasAtLeastFortyKinds() {
        #expect(Self.table.count >= 40)
        #expect(Set(Self.table.map(\.name)).count == Self.table.count)
    }

    @Test(arguments: table)
    func badInputGetsItsErrorAndChangesNothing(_ input: BadInput) async throws {
        let scene = try await BadInputScene.make()
        let before = ServerSnapshot(scene.server, devices: BadInputScene.devices)
        let error = await thrownChatError { try await input.attempt(scene) }
        #expect(error?.kind == input.expected, "\(String(describing: error))")
        #expect(ServerSnapshot(scene.server, devices: BadInputScene.devices) == before)
    }
}
