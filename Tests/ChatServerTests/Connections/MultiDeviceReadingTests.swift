import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct MultiDeviceReadingTests {
    @Test func phoneReadsLaptopDoesNotThenPhoneDisconnects() async throws {
        let (server, _) = try await makeServer()
        let sender = try await connected(server, "alice")
        let phone = try await connected(server, "bob", "phone")
        var laptop = try await connected(server, "bob", "laptop")
        try await sender.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        try await phone.send(.startReading(channelId: "c"))
        try await sender.send(.sendMessage(MessageDraft(channelId: "c", text: "seen")))
        #expect(server.unreadCount(userId: "bob", channelId: "c") == 0)
        let laptopEvents = await laptop.drainEvents()
        #expect(laptopEvents.map(\.name).suffix(2) == ["messageNew", "readMarkerMoved"])

        await phone.transport.disconnect()
        try await sender.send(.sendMessage(MessageDraft(channelId: "c", text: "unseen")))
        #expect(server.unreadCount(userId: "bob", channelId: "c") == 1)
        #expect(server.totalUnreadCount(userId: "bob") == 1)
    }

    @Test func droppedDeviceStopsReadingWhileAnotherDeviceKeepsReading() async throws {
        let (server, _) = try await makeServer()
        let alice = try await connected(server, "alice")
        let phone = try await connected(server, "bob", "phone")
        let laptop = try await connected(server, "bob", "laptop")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        try await phone.send(.startReading(channelId: "c"))
        try await laptop.send(.startReading(channelId: "c"))
        server.faults.dropConnection(userId: "bob", deviceId: "phone")
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "laptop still reads")))
        #expect(server.unreadCount(userId: "bob", channelId: "c") == 0)
        try await laptop.send(.stopReading(channelId: "c"))
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "nobody reads")))
        #expect(server.unreadCount(userId: "bob", channelId: "c") == 1)
    }
}
