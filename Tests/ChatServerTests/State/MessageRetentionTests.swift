import ChatAPI
import ChatServer
import Foundation
import Testing

@testable import ChatServer

/// A channel keeps its newest `messagesPerChannel` messages (see `ServerConfiguration`):
/// sequence numbers and unread counts go on as if nothing was dropped, paging stops at the
/// oldest kept message, and a dropped message is gone everywhere.
@Suite struct MessageRetentionTests {
    static let configuration = ServerConfiguration(messagesPerChannel: 3)

    /// Alice's community channel "c" with bob, and `count` messages from alice.
    static func channel(sending count: Int) throws -> (fixture: StateFixture, messages: [Message]) {
        var fixture = StateFixture(configuration: configuration)
        try fixture.create(.community, id: "c", members: ["bob"])
        let messages = try (1...count).map {
            try fixture.state.sendMessage("m\($0)", to: "c", by: "alice", now: fixture.now)
        }
        return (fixture, messages)
    }

    @Test func keepsTheNewestAndNumbersOn() throws {
        let (fixture, _) = try Self.channel(sending: 5)
        let record = fixture.state.channels["c"]!
        #expect(record.messages.elements.map(\.sequence) == [3, 4, 5])
        #expect(record.messages.elements.map(\.text) == ["m3", "m4", "m5"])
        let channel = fixture.channel("c", for: "bob")
        #expect(channel.lastSequence == 5 && channel.messageCount == 5)
    }

    @Test func unreadCountsAndMentionsCountWhatWasDroppedToo() throws {
        var fixture = try Self.channel(sending: 1).fixture
        _ = try fixture.state.sendMessage("hey bob", mentionedUserIds: ["bob"], to: "c", by: "alice", now: fixture.now)
        for text in ["a", "b", "c", "d"] {
            _ = try fixture.state.sendMessage(text, to: "c", by: "alice", now: fixture.now)
        }
        #expect(fixture.state.unreadCount(userId: "bob", channelId: "c") == 6)
        // The mention's message is gone; the flag stays until bob reads past it.
        #expect(fixture.channel("c", for: "bob").hasMention)
    }

    @Test func pagingStopsAtTheOldestKeptMessage() throws {
        let (fixture, _) = try Self.channel(sending: 5)
        func page(_ position: MessagePageQuery.Position, limit: Int) throws -> MessagePage {
            try fixture.state.messages(
                MessagePageQuery(channelId: "c", position: position, limit: limit), by: .user("bob"), now: fixture.now)
        }
        let latest = try page(.latest, limit: 2)
        #expect(latest.messages.map(\.sequence) == [4, 5] && latest.hasPrevious && !latest.hasNext)
        let older = try page(.before(sequence: 4), limit: 2)
        #expect(older.messages.map(\.sequence) == [3] && !older.hasPrevious && older.hasNext)
        #expect(try page(.before(sequence: 3), limit: 2).messages.isEmpty)
        #expect(try page(.before(sequence: 3), limit: 2).hasPrevious == false)
        let fromTheStart = try page(.after(sequence: 0), limit: 2)
        #expect(fromTheStart.messages.map(\.sequence) == [3, 4] && !fromTheStart.hasPrevious && fromTheStart.hasNext)
        #expect(try page(.latest, limit: 30).messages.map(\.sequence) == [3, 4, 5])
    }

    @Test func aDroppedMessageIsGoneEverywhere() throws {
        var fixture = StateFixture(configuration: Self.configuration)
        try fixture.create(.community, id: "c", members: ["bob"])
        let first = try fixture.state.sendMessage("first", to: "c", by: "bob", now: fixture.now)
        try fixture.state.setMessageFlag(first.messageId, in: "c", isFlagged: true, by: "alice", now: fixture.now)
        try fixture.state.setUserFlag("bob", in: "c", isFlagged: true, by: "alice", now: fixture.now)
        for text in ["a", "b", "c"] { _ = try fixture.state.sendMessage(text, to: "c", by: "alice", now: fixture.now) }

        #expect(fixture.state.messageLocations[first.messageId] == nil)
        #expect(fixture.state.channels["c"]!.messageFlags.isEmpty)
        #expect(
            try fixture.state.flagReports(in: "c", by: .user("alice"), now: fixture.now)
                == [FlagReport(subject: .user(userId: "bob"), flaggedBy: ["alice"])])
        #expect(
            chatError {
                try fixture.state.editMessage(first.messageId, text: "edited", by: .user("bob"), now: fixture.now)
            }?.kind == "notFound")
        #expect(
            chatError {
                _ = try fixture.state.deleteMessage(first.messageId, in: "c", by: .user("bob"), now: fixture.now)
            }?.kind == "notFound")
        #expect(
            chatError {
                try fixture.state.setMessageFlag(
                    first.messageId, in: "c", isFlagged: true, by: "alice", now: fixture.now)
            }?.kind == "notFound")
    }

    @Test func keptMessagesStillChange() throws {
        var (fixture, messages) = try Self.channel(sending: 4)
        messages = messages.filter { $0.sequence > 1 }  // the first was dropped
        try fixture.state.editMessage(messages[2].messageId, text: "edited", by: .user("alice"), now: fixture.now)
        _ = try fixture.state.deleteMessage(messages[0].messageId, in: "c", by: .user("alice"), now: fixture.now)
        #expect(fixture.state.channels["c"]!.messages.elements.map(\.text) == ["", "m3", "edited"])
    }

    /// Every per-message index is bounded by what the channels keep, however many were sent.
    @Test func indexesStayWithinWhatIsKept() throws {
        var fixture = StateFixture(configuration: Self.configuration)
        for id in ["c1", "c2"] { try fixture.create(.community, id: id, members: ["bob"]) }
        for index in 0..<500 {
            let message = try fixture.state.sendMessage(
                "m\(index)", to: index.isMultiple(of: 2) ? "c1" : "c2", by: "alice", now: fixture.now)
            if index.isMultiple(of: 7) {
                try fixture.state.setMessageFlag(
                    message.messageId, in: message.channelId, isFlagged: true, by: "bob", now: fixture.now)
            }
        }
        #expect(fixture.state.messageLocations.count == 6)
        for id in ["c1", "c2"] {
            let record = fixture.state.channels[id]!
            #expect(record.messages.count == 3)
            #expect(record.messageFlags.keys.allSatisfy { $0 >= record.messages.firstSequence })
        }
    }

    @Test func eventsOfKeptMessagesCarryThem() async throws {
        var room = try await Room.make(configuration: ServerConfiguration(messagesPerChannel: 1), drained: true)
        try await room.aliceSays("one")
        try await room.aliceSays("two")
        let texts = await room.bob.drainEvents().compactMap { event -> String? in
            if case .messageNew(let message, _) = event { message.text } else { nil }
        }
        #expect(texts == ["one", "two"])
        #expect(room.server.messages(channelId: "c").map(\.text) == ["two"])
    }

    @Test func theDefaultKeepsTenThousandAndAtLeastOne() {
        #expect(ServerConfiguration().messagesPerChannel == 10_000)
        #expect(ServerConfiguration(messagesPerChannel: 0).messagesPerChannel == 1)
        #expect(ServerConfiguration(messagesPerChannel: .max).messagesPerChannel == .max)
    }
}
