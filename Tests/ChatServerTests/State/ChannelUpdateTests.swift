import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct ChannelUpdateTests {
    @Test func metadataIsAJSONObjectUpTo100KBLastWriterWins() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.addMembers(["bob"], to: id, by: .user("alice"), now: fixture.now)
        try fixture.state.setRole(
            ChannelRole.moderator, granted: true, for: ["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.updateChannel(
            id, ChannelChanges(channelId: "", metadata: ["hello": "world"]), by: .user("alice"), now: fixture.now)
        try fixture.state.updateChannel(
            id, ChannelChanges(channelId: "", metadata: ["state": "LA"]), by: .user("bob"), now: fixture.now)
        #expect(fixture.channel(id, for: nil).metadata == ["state": "LA"])

        let big = String(repeating: "x", count: InputLimits.maxMetadataBytes)
        let error = chatError {
            try fixture.state.updateChannel(
                id, ChannelChanges(channelId: "", metadata: ["big": .string(big)]), by: .user("alice"), now: fixture.now
            )
        }
        #expect(error?.kind == "limitExceeded")
        #expect(fixture.channel(id, for: nil).metadata == ["state": "LA"])
        let fits = String(repeating: "x", count: InputLimits.maxMetadataBytes - 20)
        try fixture.state.updateChannel(
            id, ChannelChanges(channelId: "", metadata: ["b": .string(fits)]), by: .user("alice"), now: fixture.now)
        #expect(throws: ChatError.self) { _ = try InputCheck.metadata(JSON.array([1]), field: "metadata") }
    }

    @Test func displayNameTagsAndAvatarAreSetAndKeptWhenUnchanged() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        fixture.advance(10)
        try fixture.state.updateChannel(
            id, ChannelChanges(channelId: "", displayName: "Ops", avatarFileId: "file-1", tags: ["a", "b"]),
            by: .user("alice"), now: fixture.now)
        var channel = fixture.channel(id, for: "alice")
        #expect(channel.displayName == "Ops")
        #expect(channel.tags == ["a", "b"])
        #expect(channel.avatarFileId == "file-1")
        #expect(channel.updatedAt == fixture.now)
        try fixture.state.updateChannel(
            id, ChannelChanges(channelId: "", displayName: "Ops 2"), by: .user("alice"), now: fixture.now)
        channel = fixture.channel(id, for: "alice")
        #expect(channel.displayName == "Ops 2")
        #expect(channel.avatarFileId == "file-1")
        #expect(channel.tags == ["a", "b"])
    }
}
