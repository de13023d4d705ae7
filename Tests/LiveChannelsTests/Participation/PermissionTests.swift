import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

/// `client.hasPermission(_:forChannel:)` against the server's actual behaviour: for every
/// permission, every kind of user and three channel types, the answer equals whether attempting
/// the action succeeds (each attempt in a fresh channel).
@Suite(.timeLimit(.minutes(2))) struct PermissionTests {
    let fixture = ChatFixture()

    /// admin (not a member), alice (moderator), bob (member), carol (outsider), dave (banned).
    let users = ["admin", "alice", "bob", "carol", "dave"]

    /// A fresh channel of `type` set up with the roles above; returns its id and the id of a
    /// message by someone other than the actors.
    private func makeChannel(_ type: ChannelType, number: Int, clients: [String: ChatClient]) async throws -> (
        String, String
    ) {
        let id = "\(type.rawValue)-\(number)"
        switch type {
        case .conversation:
            // Unique member sets, so every attempt gets its own conversation.
            try await fixture.server.registerUser(id: "extra\(number)")
            let channel = try await fixture.server.createChannel(
                type: .conversation, userIds: ["alice", "bob", "eve", "extra\(number)"])
            let message = try await fixture.server.sendMessage(as: "eve", channelId: channel.channelId, text: "hi")
            return (channel.channelId, message.messageId)
        case .broadcast:
            try await fixture.server.createChannel(type: .broadcast, channelId: id, userIds: ["alice", "bob", "eve"])
            let moderation = ChannelModeration(client: clients["admin"]!, channelId: id)
            try await moderation.addRole(ChannelRole.moderator, userIds: ["alice"])
            try await moderation.banMembers(["dave"])
            let message = try await fixture.server.sendMessage(as: "admin", channelId: id, text: "news")
            return (id, message.messageId)
        default:
            try await makeClub(id, by: clients["alice"]!, members: ["bob", "eve"])
            try await ChannelModeration(client: clients["alice"]!, channelId: id).banMembers(["dave"])
            let message = try await fixture.server.sendMessage(as: "eve", channelId: id, text: "hi")
            return (id, message.messageId)
        }
    }

    /// The request that exercises `permission` in `channelId`.
    private func attempt(_ permission: Permission, in channelId: String, messageId: String) -> ChatRequest {
        switch permission {
        case .editChannel: .updateChannel(ChannelChanges(channelId: channelId, displayName: "renamed"))
        case .deleteChannel: .deleteChannel(channelId: channelId)
        case .sendMessage: .sendMessage(MessageDraft(channelId: channelId, text: "hello"))
        case .editAnyMessage:
            .editMessage(messageId: messageId, draft: MessageDraft(channelId: channelId, text: "edited"))
        case .deleteAnyMessage: .deleteMessage(channelId: channelId, messageId: messageId)
        case .addMember: .addMembers(channelId: channelId, userIds: ["frank"])
        case .removeMember: .removeMembers(channelId: channelId, userIds: ["eve"])
        case .banMember: .banMembers(channelId: channelId, userIds: ["eve"])
        case .muteMember: .muteMembers(channelId: channelId, userIds: ["eve"], period: 60)
        case .manageRoles: .addRole("vip", channelId: channelId, userIds: ["eve"])
        case .muteChannel: .muteChannel(channelId: channelId, period: 60)
        case .manageRateLimit: .setRateLimit(channelId: channelId, period: 60, limit: 5, window: 60)
        }
    }

    @Test(arguments: [ChannelType.community, .broadcast, .conversation])
    func answersMatchWhatTheServerEnforces(_ type: ChannelType) async throws {
        var clients: [String: ChatClient] = [:]
        for user in users { clients[user] = try await fixture.client(user) }
        try await fixture.server.registerUser(id: "admin", isAdmin: true)
        for user in ["eve", "frank"] { try await fixture.server.registerUser(id: user) }
        var answers: [String: [Permission: Bool]] = [:]
        var number = 0
        for user in users {
            for permission in Permission.allCases {
                number += 1
                let (channelId, messageId) = try await makeChannel(type, number: number, clients: clients)
                let client = clients[user]!
                let answer = (try? await client.hasPermission(permission, forChannel: channelId)) ?? false
                let error = await chatError {
                    _ = try await client.transport.send(attempt(permission, in: channelId, messageId: messageId))
                }
                #expect(
                    answer == (error == nil),
                    "\(type) \(user) \(permission): answered \(answer), attempt \(error.map { "\($0)" } ?? "succeeded")"
                )
                answers[user, default: [:]][permission] = answer
            }
        }
        // Anchors, so that a server that refuses (or allows) everything fails too.
        switch type {
        case .community:
            #expect(Permission.allCases.allSatisfy { answers["admin"]![$0]! })
            #expect(Permission.allCases.filter { answers["alice"]![$0]! }.count == Permission.allCases.count - 1)
            #expect(answers["alice"]![.deleteChannel] == false)
            #expect(Set(Permission.allCases.filter { answers["bob"]![$0]! }) == [.sendMessage, .addMember])
            #expect(Permission.allCases.allSatisfy { !answers["carol"]![$0]! })
            #expect(Permission.allCases.allSatisfy { !answers["dave"]![$0]! })
        case .broadcast:
            #expect(answers["alice"]![.banMember] == false)
            #expect(answers["bob"]![.sendMessage] == false)
            #expect(answers["admin"]![.sendMessage] == true)
        default:
            #expect(answers["bob"]![.editChannel] == true)
            #expect(answers["bob"]![.addMember] == false)
            #expect(answers["admin"]![.banMember] == false)
        }
    }

    @Test func completionFormAndInvisibleChannels() async throws {
        let alice = try await fixture.client("alice")
        try await makeClub("club", by: alice)
        let allowed = await withCheckedContinuation { continuation in
            alice.hasPermission(.editChannel, forChannel: "club") { continuation.resume(returning: $0) }
        }
        #expect(allowed)
        let missing = await withCheckedContinuation { continuation in
            alice.hasPermission(.editChannel, forChannel: "nowhere") { continuation.resume(returning: $0) }
        }
        #expect(!missing)
        #expect(
            await chatError { _ = try await alice.hasPermission(.sendMessage, forChannel: "nowhere") }?.cause
                == "notFound")
    }
}
