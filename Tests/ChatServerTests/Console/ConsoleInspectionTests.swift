import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// What the console reads for an operator (the admin API's finds and moderation queue): users and
/// channels found by a part of their id or name, ignoring case, or by tag, in id order and
/// bounded; a user's devices and channels; every channel's flag reports in one list.
@Suite struct ConsoleInspectionTests {
    @Test func usersAndChannelsAreFoundByAPartOfTheirIdOrNameOrByTag() async throws {
        let server = ChatServer()
        for (id, name) in [("ann", "Ann Lee"), ("bob", "Bob"), ("joanna", nil), ("zed", "Hannah")] {
            try await server.registerUser(id: id, displayName: name)
        }
        #expect(server.findUsers(matching: "AN").map(\.userId) == ["ann", "joanna", "zed"])
        #expect(server.findUsers(matching: "an", limit: 2).map(\.userId) == ["ann", "joanna"])
        #expect(server.findUsers(matching: "").count == 4)
        #expect(server.findUsers(matching: "nobody").isEmpty)

        try await server.createChannel(type: .community, channelId: "news", displayName: "Daily", tags: ["press"])
        try await server.createChannel(type: .community, channelId: "ops", displayName: "Newsroom")
        try await server.createChannel(type: .community, channelId: "misc", tags: ["press"])
        #expect(server.findChannels(matching: "news").map(\.channelId) == ["news", "ops"])
        #expect(server.findChannels(matching: "", tag: "press").map(\.channelId) == ["misc", "news"])
        #expect(server.findChannels(matching: "NEWS", tag: "press").map(\.channelId) == ["news"])
        #expect(server.findChannels(matching: "", tag: "none").isEmpty)
    }

    /// The overview's "Messages sent" counts what clients send with ids they chose (the SDK's
    /// outbox always chooses), not only the ids the server numbered; a repeat of a send is not
    /// counted again, and the count continues after a restart from storage.
    @Test func messagesSentCountsEveryMessageWhoeverChoseItsIdAndSurvivesARestart() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.registerUser(id: "bob")
        var alice = TestDevice(server, "alice")
        _ = try await alice.connect()
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for index in 0..<7 {
            _ = try await alice.send(
                .sendMessage(MessageDraft(channelId: "c", text: "chosen \(index)", messageId: "alice-\(index)")))
        }
        // A resend of a message already stored answers it again: not a new message.
        _ = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "chosen 0", messageId: "alice-0")))
        try await server.sendMessage(as: "bob", channelId: "c", text: "through the admin API")
        #expect(server.serviceSummary().messagesSent == 8)
        await server.close()

        let reopened = try ChatServer(storage: .sqlite(directory.file))
        #expect(reopened.serviceSummary().messagesSent == 8)
        try await reopened.sendMessage(as: "bob", channelId: "c", text: "after the restart")
        #expect(reopened.serviceSummary().messagesSent == 9)
        await reopened.close()
    }

    @Test func aUsersDevicesAndChannelsAndEveryChannelsFlags() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "ann")
        try await server.registerUser(id: "bob")
        try await server.createChannel(type: .community, channelId: "c", userIds: ["ann", "bob"])
        try await server.createChannel(type: .community, channelId: "d", userIds: ["ann", "bob"])
        #expect(server.channelIds(memberOf: "ann") == ["c", "d"])
        #expect(server.devices(userId: "bob").isEmpty)
        var bob = try await connected(server, "bob", "phone")
        let message = try await server.sendMessage(as: "ann", channelId: "d", text: "spam")
        try await bob.send(.flagMessage(channelId: "d", messageId: message.messageId))
        let devices = server.devices(userId: "bob")
        #expect(devices.map(\.deviceId) == ["phone"])
        #expect(devices.first?.isConnected == true)
        #expect(devices.first?.lastSequence == server.lastEventSequence(userId: "bob", deviceId: "phone"))
        #expect(
            server.flagReports()
                == [
                    .init(
                        channelId: "d", subject: .message(messageId: message.messageId), flaggedBy: ["bob"],
                        message: server.messages(channelId: "d").last)
                ])
        #expect(server.flagReports().first?.message?.text == "spam")
        // Resolved: the report leaves the queue; a second dismissal finds nothing.
        try await server.dismissFlags(of: .message(messageId: message.messageId), in: "d")
        #expect(server.flagReports().isEmpty)
        await #expect(throws: ChatError.notFound("flags of message '\(message.messageId)' in channel 'd'")) {
            try await server.dismissFlags(of: .message(messageId: message.messageId), in: "d")
        }
        let summary = server.serviceSummary()
        #expect(summary.users == 2 && summary.channels == 2 && summary.connectedDevices == 1)
        #expect(summary.nodeId == nil && summary.nodes.isEmpty)
        _ = await bob.drain()
        // The console ends bob's connection: he is told, and counted gone.
        try await server.disconnect(userId: "bob", deviceId: "phone")
        guard case .disconnected(.connectionLost(.forbidden))? = await bob.next() else {
            Issue.record("bob was not told his connection ended")
            return
        }
        #expect(server.devices(userId: "bob").first?.isConnected == false)
        #expect(server.user("bob")?.isOnline == false)
        #expect(server.serviceSummary().connectedDevices == 0)
        await #expect(throws: ChatError.self) { try await server.disconnect(userId: "bob", deviceId: "phone") }
    }
}

/// The console moderates as a channel's moderator would, without being a member: members
/// removed, banned and unbanned, muted until a time and unmuted, a message deleted — the same
/// events for the members, and the rules of channel types kept (a conversation refuses).
@Suite struct ConsoleModerationTests {
    @Test func theConsoleModeratesAnyChannel() async throws {
        let server = ChatServer()
        for id in ["ann", "bob", "eve"] { try await server.registerUser(id: id) }
        try await server.createChannel(type: .community, channelId: "c", userIds: ["ann", "bob", "eve"])
        var ann = try await connected(server, "ann")
        let spam = try await server.sendMessage(as: "eve", channelId: "c", text: "spam")

        let deleted = try await server.deleteMessage(spam.messageId, in: "c")
        #expect(deleted.isDeleted)
        try await server.muteMembers(["bob"], in: "c", for: 60)
        #expect(server.members(channelId: "c").first { $0.userId == "bob" }?.isMuted == true)
        try await server.muteMembers(["bob"], in: "c", for: nil)
        #expect(server.members(channelId: "c").first { $0.userId == "bob" }?.isMuted == false)
        try await server.banMembers(["eve"], in: "c")
        #expect(server.members(channelId: "c").first { $0.userId == "eve" }?.membership == .banned)
        try await server.unbanMembers(["eve"], in: "c")
        // Content filters, as a moderator sets them; a conversation has none.
        let filters = try await server.setModerationSettings(
            ModerationSettings(blockedWords: [" Spam "], blockedWordAction: .mask), of: "c")
        #expect(filters.blockedWords == ["Spam"] && filters.blockedWordAction == .mask)
        #expect(try server.moderationSettings(of: "c") == filters)
        let masked = try await server.sendMessage(as: "ann", channelId: "c", text: "no spam here")
        #expect(masked.text == "no **** here")
        #expect(server.members(channelId: "c").contains { $0.userId == "eve" } == false)
        try await server.removeMembers(["bob"], from: "c")
        #expect(server.channelIds(memberOf: "bob").isEmpty)
        // Ann, a member, was told of each change.
        let names = Set(await ann.drainEvents().map(\.name))
        #expect(names.isSuperset(of: ["messageDeleted", "memberBanned", "memberRemoved"]), "\(names)")

        let conversation = try await server.createChannel(type: .conversation, userIds: ["ann", "bob"])
        await #expect(throws: ChatError.self) { try await server.removeMembers(["bob"], from: conversation.channelId) }
        await #expect(throws: ChatError.self) { try await server.deleteMessage("nope", in: "c") }
    }
}
