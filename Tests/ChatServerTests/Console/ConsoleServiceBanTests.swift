import ChatAPI
import Foundation
import RowCoding
import Testing

@testable import ChatServer

/// A ban from the whole service (the console's `banUser`): every device of the user is
/// disconnected at once and told why, no connect of theirs is accepted until the ban is lifted,
/// the ban outlives a restart, and on a cluster a ban made through one node is in force on
/// every node.
@Suite struct ConsoleServiceBanTests {
    @Test func aBannedUserIsDisconnectedEverywhereAndCannotConnectUntilUnbanned() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "ann")
        try await server.registerUser(id: "eve")
        var phone = try await connected(server, "eve", "phone")
        var laptop = try await connected(server, "eve", "laptop")
        let ann = try await connected(server, "ann")
        _ = await phone.drain()
        _ = await laptop.drain()
        #expect(server.serviceBan(of: "eve") == nil)

        try await server.banUser("eve")
        for (name, device) in [("phone", phone), ("laptop", laptop)] {
            var device = device
            guard case .disconnected(.connectionLost(.forbidden))? = await device.next() else {
                Issue.record("eve's \(name) was not told she is banned")
                return
            }
        }
        let bannedAt = try #require(server.serviceBan(of: "eve"))
        #expect(server.user("eve")?.isOnline == false)
        #expect(server.devices(userId: "eve").allSatisfy { !$0.isConnected })
        #expect(server.user("ann")?.isOnline == true, "another user is untouched")

        // Refused before an upgrade and at the connect itself, naming the ban.
        await #expect(throws: ChatError.forbidden("user 'eve' is banned from the service")) {
            try await server.checkCanConnect(userId: "eve", deviceId: "phone")
        }
        var again = TestDevice(server, "eve", "phone")
        await #expect(throws: ChatError.forbidden("user 'eve' is banned from the service")) {
            _ = try await again.connect()
        }
        // A second ban keeps the first one's time.
        try await server.banUser("eve")
        #expect(server.serviceBan(of: "eve") == bannedAt)

        try await server.unbanUser("eve")
        #expect(server.serviceBan(of: "eve") == nil)
        var back = TestDevice(server, "eve", "phone")
        _ = try await back.connect()
        #expect(server.user("eve")?.isOnline == true)
        _ = ann
        await #expect(throws: ChatError.notFound("user 'nobody'")) { try await server.banUser("nobody") }
    }

    @Test func aBanIsStoredWithTheUserAndOutlivesARestart() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try await ChatServer(opening: .sqlite(directory.file))
        try await server.registerUser(id: "eve", displayName: "Eve")
        try await server.registerUser(id: "ann")
        try await server.banUser("eve")
        let bannedAt = server.serviceBan(of: "eve")
        await server.close()

        let reopened = try await ChatServer(opening: .sqlite(directory.file))
        #expect(reopened.serviceBan(of: "eve") == bannedAt)
        #expect(reopened.serviceBan(of: "ann") == nil)
        #expect(reopened.user("eve")?.displayName == "Eve")
        await #expect(throws: ChatError.self) { try await reopened.checkCanConnect(userId: "eve") }
        try await reopened.unbanUser("eve")
        await reopened.close()

        let third = try await ChatServer(opening: .sqlite(directory.file))
        #expect(third.serviceBan(of: "eve") == nil)
        try await third.checkCanConnect(userId: "eve")
        await third.close()
    }

    @Test func aUserRowWrittenBeforeBansReadsAsNotBanned() throws {
        let user = User(userId: "old", displayName: "Old", createdAt: Date(timeIntervalSince1970: 10))
        var writer = RowWriter()
        try user.encodeRow(to: &writer)
        let read = try StoredUser.decodeRow(writer.bytes)
        #expect(read.user == user && read.bannedAt == nil)
        let banned = StoredUser(user: user, bannedAt: Date(timeIntervalSince1970: 20))
        writer.removeAll()
        try banned.encodeRow(to: &writer)
        #expect(try StoredUser.decodeRow(writer.bytes) == banned)
    }
}
