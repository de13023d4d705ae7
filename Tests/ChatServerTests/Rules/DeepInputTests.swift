import ChatAPI
import ChatServer
import Foundation
import Testing

/// A JSON value nested `depth` arrays/objects deep, built without recursion.
func deepJSON(_ depth: Int, leaf: JSON = 1) -> JSON {
    var value = leaf
    for level in 0..<depth { value = level.isMultiple(of: 2) ? ["k": value] : [value] }
    return value
}

/// Deep, non-finite and oversized input through every metadata path (the request path and the
/// console): refused with one error case per cause, nothing changed, no crash.
@Suite struct DeepInputTests {
    /// Every metadata path, given the metadata to send.
    static func metadataPaths(_ room: Room) -> [(name: String, attempt: ([String: JSON]) async throws -> Void)] {
        [
            (
                "createChannel",
                { try await room.alice.send(.createChannel(ChannelDraft(type: .community, metadata: $0))) }
            ),
            (
                "updateChannel",
                { try await room.alice.send(.updateChannel(ChannelChanges(channelId: "c", metadata: $0))) }
            ),
            (
                "sendMessage",
                { try await room.alice.send(.sendMessage(MessageDraft(channelId: "c", text: "hi", metadata: $0))) }
            ),
            (
                "editMessage",
                {
                    try await room.alice.send(
                        .editMessage(
                            messageId: "message-1", draft: MessageDraft(channelId: "c", text: "hi", metadata: $0)))
                }
            ),
            ("updateCurrentUser", { try await room.alice.send(.updateCurrentUser(displayName: nil, metadata: $0)) }),
            ("console createChannel", { try await room.server.createChannel(type: .broadcast, metadata: $0) }),
            (
                "console updateChannel",
                { try await room.server.updateChannel(ChannelChanges(channelId: "c", metadata: $0)) }
            ),
        ]
    }

    static let deep: [String: JSON] = ["deep": deepJSON(3_000)]  // about 18 KB encoded
    static let big: [String: JSON] = ["big": .string(String(repeating: "x", count: InputLimits.maxMetadataBytes))]

    @Test(
        arguments: [
            ("deep", deep), ("NaN", ["n": .number(.nan)]), ("+infinity", ["n": [1, .number(.infinity)]]),
            ("-infinity", ["a": ["b": .number(-.infinity)]]), ("33 deep", ["d": deepJSON(InputLimits.maxJSONDepth)]),
        ] as [(String, [String: JSON])])
    func malformedMetadataIsInvalidArgumentOnEveryPath(label: String, metadata: [String: JSON]) async throws {
        let room = try await Room.make(drained: true)
        try await room.aliceSays("first")
        for (name, attempt) in Self.metadataPaths(room) {
            let before = ServerSnapshot(room.server, devices: [("alice", "default"), ("bob", "default")])
            let error = await thrownChatError { try await attempt(metadata) }
            #expect(error?.kind == "invalidArgument(metadata)", "\(label) via \(name): \(String(describing: error))")
            #expect(
                ServerSnapshot(room.server, devices: [("alice", "default"), ("bob", "default")]) == before, "\(name)")
        }
    }

    @Test func oversizedMetadataIsLimitExceededOnCreateAndUpdateAlike() async throws {
        let room = try await Room.make(drained: true)
        try await room.aliceSays("first")
        for (name, attempt) in Self.metadataPaths(room) {
            let before = ServerSnapshot(room.server)
            let error = await thrownChatError { try await attempt(Self.big) }
            #expect(error?.kind == "limitExceeded", "\(name): \(String(describing: error))")
            #expect(ServerSnapshot(room.server) == before, "\(name)")
        }
    }

    @Test func metadataAtTheDepthLimitIsStored() async throws {
        let room = try await Room.make(drained: true)
        let metadata: [String: JSON] = ["d": deepJSON(InputLimits.maxJSONDepth - 1)]
        try await room.alice.send(.updateChannel(ChannelChanges(channelId: "c", metadata: metadata)))
        #expect(room.server.channel("c")?.metadata == metadata)
    }

    @Test func aHostileFilterIsRefusedByTheQueryPath() async throws {
        let room = try await Room.make(drained: true)
        var filter: Filter = .equal(.type, to: .community)
        for _ in 0..<10_000 { filter = .and([filter]) }
        let error = await thrownChatError {
            try await room.alice.send(.queryChannels(ChannelListQuery(filter: filter), after: nil))
        }
        #expect(error?.kind == "invalidArgument(filter)")
        let nan = await thrownChatError {
            try await room.alice.send(
                .queryChannels(ChannelListQuery(filter: .equal("score", to: .number(.nan))), after: nil))
        }
        #expect(nan?.kind == "invalidArgument(metadata.score)")
    }
}

/// The `ChatError` an async call throws (`nil` if it succeeds).
func thrownChatError(_ body: () async throws -> Void) async -> ChatError? {
    do {
        try await body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        return .unavailable("unexpected error \(error)")
    }
}
