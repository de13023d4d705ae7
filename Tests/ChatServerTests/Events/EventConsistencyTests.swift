import ChatAPI
import ChatServer
import Foundation
import Testing
import TestSupport

@Suite struct EventConsistencyTests {
    /// A device that keeps the newest channel value each event carries ends up with exactly
    /// the server's view of every channel: membership, unread count and mention flag, across
    /// sends, reading, joins, leaves, bans, mentions and dropped connections that resume.
    @Test func channelValuesInEventsFoldToTheServersView() async throws {
        let seed = SeededGenerator.testSeed(0x5EED_0010)
        var random = SeededGenerator(seed: seed)
        let (server, _) = try await makeServer()
        var devices = [
            try await connected(server, "alice"), try await connected(server, "bob", "phone"),
            try await connected(server, "bob", "laptop"), try await connected(server, "carol"),
        ]
        let rooms = ["r0", "r1", "r2"]
        for room in rooms {
            try await devices[0].send(
                .createChannel(ChannelDraft(type: .community, channelId: room, userIds: ["bob", "carol"])))
        }
        var views: [[String: Channel]] = Array(repeating: [:], count: devices.count)
        for _ in 0..<300 {
            let index = Int.random(in: 0..<devices.count, using: &random)
            let room = rooms.randomElement(using: &random)!
            let other = ["alice", "bob", "carol"].randomElement(using: &random)!
            let request: ChatRequest =
                switch Int.random(in: 0..<9, using: &random) {
                case 0, 1, 2: .sendMessage(MessageDraft(channelId: room, text: "hi", mentionedUserIds: [other]))
                case 3: .startReading(channelId: room)
                case 4: .stopReading(channelId: room)
                case 5: .joinChannel(channelId: room)
                case 6: .leaveChannel(channelId: room)
                case 7: .banMembers(channelId: room, userIds: [other])
                default: .unbanMembers(channelId: room, userIds: [other])
                }
            _ = try? await devices[index].send(request)
            if Int.random(in: 0..<20, using: &random) == 0 {
                let device = devices[index]
                server.faults.dropConnection(userId: device.userId, deviceId: device.deviceId)
                for envelope in await devices[index].drain() { fold(envelope.event, into: &views[index]) }
                #expect(try await devices[index].connect(resumingAfter: devices[index].lastSequence).status == .resumed)
            }
        }
        for index in devices.indices {
            for envelope in await devices[index].drain() { fold(envelope.event, into: &views[index]) }
            let userId = devices[index].userId
            for room in rooms {
                let truth = try #require(server.channel(room, as: userId))
                let seen = try #require(views[index][room], "seed \(seed)")
                #expect(seen.currentUserMembership == truth.currentUserMembership, "seed \(seed), \(userId) \(room)")
                #expect(seen.unreadCount == truth.unreadCount, "seed \(seed), \(userId) \(room)")
                #expect(seen.unreadCount == server.unreadCount(userId: userId, channelId: room), "seed \(seed)")
                #expect(seen.hasMention == truth.hasMention, "seed \(seed), \(userId) \(room)")
                #expect(seen.lastSequence == truth.lastSequence, "seed \(seed), \(userId) \(room)")
            }
        }
    }

    private func fold(_ event: ChatEvent, into view: inout [String: Channel]) {
        switch event {
        case .channelCreated(let channel), .channelUpdated(let channel), .channelDeleted(let channel),
            .memberAdded(_, let channel), .memberRemoved(_, let channel), .memberBanned(_, let channel),
            .memberUnbanned(_, let channel), .messageNew(_, let channel), .readMarkerMoved(_, let channel):
            view[channel.channelId] = channel
        default:
            break
        }
    }
}
