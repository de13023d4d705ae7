import ChatAPI
import Foundation
import RowCoding
import Testing

@testable import ChatServer

/// The server's push registry: tokens and channel notification settings kept with the user's
/// row, so they outlive a restart, and read from rows written before they existed.
@Suite struct PushRegistryTests {
    @Test func tokensAndNotificationSettingsOutliveARestart() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try await ChatServer(opening: .sqlite(directory.file))
        try await server.registerUser(id: "ann")
        try await server.createChannel(type: .community, channelId: "ops", userIds: ["ann"])
        var ann = try await connected(server, "ann", "phone")
        try await ann.send(.addPushDevice(.apn(token: Data([0xab, 0xcd]))))
        try await ann.send(.addPushDevice(.firebase(token: "f1")))
        try await ann.send(.setChannelNotifications(channelId: "ops", enabled: false))
        _ = await ann.drain()
        await server.close()

        let reopened = try await ChatServer(opening: .sqlite(directory.file))
        #expect(Set(reopened.pushDevices(userId: "ann")) == [.apn(token: Data([0xab, 0xcd])), .firebase(token: "f1")])
        let again = try await connected(reopened, "ann", "phone")
        #expect(try await again.send(.getChannelNotifications(channelId: "ops")) == .bool(false))
        // This device's tokens removed: the row keeps only the setting.
        try await again.send(.removePushDevice(id: nil))
        #expect(reopened.pushDevices(userId: "ann").isEmpty)
        await reopened.close()
        let third = try await ChatServer(opening: .sqlite(directory.file))
        #expect(third.pushDevices(userId: "ann").isEmpty)
        let last = try await connected(third, "ann", "phone")
        #expect(try await last.send(.getChannelNotifications(channelId: "ops")) == .bool(false))
        await third.close()
    }

    @Test func aUserRowCarriesItsExtrasOnlyWhenItHasSome() throws {
        let user = User(userId: "ann", createdAt: Date(timeIntervalSince1970: 5))
        var writer = RowWriter()
        try StoredUser(user: user).encodeRow(to: &writer)
        var plain = RowWriter()
        try user.encodeRow(to: &plain)
        #expect(writer.bytes == plain.bytes, "no extras: the row is a user's row as before")
        let full = StoredUser(
            user: user, bannedAt: Date(timeIntervalSince1970: 9),
            pushDevices: [PushRegistration(userId: "ann", deviceId: "phone", device: .firebase(token: "t"))],
            notificationsOff: ["ops"])
        writer.removeAll()
        try full.encodeRow(to: &writer)
        #expect(try StoredUser.decodeRow(writer.bytes) == full)
        // A format this version does not know is refused, not misread.
        var bytes = plain.bytes
        bytes.append(2)
        #expect(throws: RowCodingError.self) { _ = try StoredUser.decodeRow(bytes) }
    }
}
