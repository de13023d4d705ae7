import ChatAPI
import ChatServer
import Foundation
import Testing

/// Ids are refused, never rewritten, wherever the server checks them.
@Suite struct IdRulesTests {
    static let badIds = [
        " ", "  \t", " bob", "bob ", "b\u{202E}ob", "b\u{2067}ob", "b\u{200B}ob", "\u{FEFF}bob", "bo\u{2060}b",
        "e\u{301}",
    ]

    @Test(arguments: badIds)
    func badUserAndDeviceIdsCannotConnect(id: String) async throws {
        let (server, _) = try await makeServer()
        let error = await thrownChatError { _ = try await server.connection(userId: id).connect(resumingAfter: nil) }
        #expect(error?.kind == "invalidArgument(userId)")
        let deviceError = await thrownChatError {
            _ = try await server.connection(userId: "alice", deviceId: id).connect(resumingAfter: nil)
        }
        #expect(deviceError?.kind == "invalidArgument(deviceId)")
        #expect(server.user(id) == nil)
        await #expect(throws: ChatError.self) { try await server.registerUser(id: id) }
    }

    @Test(arguments: badIds)
    func badChannelIdsAreRefused(id: String) async throws {
        let room = try await Room.make(drained: true)
        let before = ServerSnapshot(room.server)
        let error = await thrownChatError {
            try await room.alice.send(.createChannel(ChannelDraft(type: .community, channelId: id)))
        }
        #expect(error?.kind == "invalidArgument(channelId)")
        let members = await thrownChatError { try await room.alice.send(.addMembers(channelId: "c", userIds: [id])) }
        #expect(members?.kind == "invalidArgument(userIds)")
        #expect(ServerSnapshot(room.server) == before)
    }

    @Test func nfcIdsAreAccepted() async throws {
        let room = try await Room.make(drained: true)
        try await room.alice.send(.createChannel(ChannelDraft(type: .community, channelId: "caf\u{E9}")))
        #expect(room.server.channel("caf\u{E9}") != nil)
    }
}
