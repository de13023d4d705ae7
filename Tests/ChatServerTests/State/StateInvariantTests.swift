import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

@Suite struct StateInvariantTests {
    /// After any seeded random sequence of operations (valid or not), the indexes agree with
    /// the records: member counts, memberships, type and tag indexes, reading, deadlines and
    /// message sequence numbers and locations (channels keep 8 messages, so some are dropped).
    @Test func indexesStayConsistentUnderRandomOperations() {
        let seed = SeededGenerator.testSeed(0x5EED_0020)
        var random = SeededGenerator(seed: seed)
        var fixture = StateFixture(configuration: ServerConfiguration(messagesPerChannel: 8))
        let users = ["alice", "bob", "carol", "dave", "boss"]
        let channels = (0..<6).map { "c\($0)" }
        let tags = ["x", "y", "z"]
        for step in 0..<1_500 {
            let user = users.randomElement(using: &random)!
            let other = users.randomElement(using: &random)!
            let channel = channels.randomElement(using: &random)!
            let now = fixture.now
            var state = fixture.state
            switch Int.random(in: 0..<16, using: &random) {
            case 0:
                let type = [ChannelType.community, .live, .conversation].randomElement(using: &random)!
                _ = try? state.createChannel(
                    ChannelDraft(type: type, channelId: type == .conversation ? nil : channel, userIds: [other]),
                    by: .user(user), now: now)
            case 1: try? state.joinChannel(channel, userId: user, now: now)
            case 2: try? state.leaveChannel(channel, userId: user, now: now)
            case 3: try? state.addMembers([other], to: channel, by: .user(user), now: now)
            case 4: try? state.removeMembers([other], from: channel, by: .user(user), now: now)
            case 5: try? state.banMembers([other], in: channel, by: .user(user), now: now)
            case 6: try? state.unbanMembers([other], in: channel, by: .user(user), now: now)
            case 7: try? state.muteMembers([other], period: 30, in: channel, by: .user(user), now: now)
            case 8: try? state.muteChannel(channel, period: 20, by: .user(user), now: now)
            case 9: try? state.setRateLimit(channel, period: 40, limit: 2, window: 10, by: .user(user), now: now)
            case 10: _ = try? state.sendMessage("m\(step)", mentionedUserIds: [other], to: channel, by: user, now: now)
            case 11: try? state.startReading(channel, userId: user, deviceId: "d\(step % 2)", now: now)
            case 12: state.stopAllReading(device: .init(userId: user, deviceId: "d\(step % 2)"))
            case 13: try? state.startTyping(channel, userId: user, now: now)
            case 14:
                let newTags = tags.filter { _ in Bool.random(using: &random) }
                _ = try? state.updateChannel(
                    channel, ChannelChanges(channelId: "", tags: newTags), by: .user(user), now: now)
            default: try? state.deleteChannel(channel, by: .user(user), now: now)
            }
            fixture.state = state
            fixture.advance(Double(Int.random(in: 0..<8, using: &random)))
            _ = fixture.state.drainEmissions()
        }
        let state = fixture.state
        for (id, record) in state.channels {
            #expect(record.info.memberCount == record.members.count, "seed \(seed): \(id)")
            #expect(Set(record.members.keys).isDisjoint(with: record.bans.keys), "seed \(seed): \(id)")
            #expect(
                record.messages.elements.map(\.sequence)
                    == Array(record.messages.firstSequence..<record.messages.lastSequence + 1), "seed \(seed)")
            #expect(record.info.lastSequence == record.messages.lastSequence, "seed \(seed): \(id)")
            #expect(
                state.messageLocations.values.filter { $0.channelId == id }.count == record.messages.count,
                "seed \(seed)")
            for message in record.messages.elements {
                #expect(state.messageLocations[message.messageId]?.sequence == message.sequence, "seed \(seed): \(id)")
            }
            #expect(state.channelsByType[record.type]?.contains(id) == true, "seed \(seed): \(id)")
            for tag in record.info.tags { #expect(state.channelsByTag[tag]?.contains(id) == true, "seed \(seed)") }
            #expect(state.timedChannels.contains(id) == record.hasDeadlines, "seed \(seed): \(id)")
            for (userId, devices) in record.readers {
                #expect(record.isMember(userId), "seed \(seed): reader \(userId) of \(id) is a member")
                for device in devices {
                    #expect(
                        state.readingByDevice[.init(userId: userId, deviceId: device)]?.contains(id) == true,
                        "seed \(seed)")
                }
            }
            for member in record.members.values {
                #expect(member.readSequence <= record.info.lastSequence, "seed \(seed)")
            }
        }
        for (tag, ids) in state.channelsByTag {
            for id in ids { #expect(state.channels[id]?.info.tags.contains(tag) == true, "seed \(seed): \(tag) \(id)") }
        }
        for (userId, ids) in state.memberships {
            for id in ids { #expect(state.channels[id]?.isMember(userId) == true, "seed \(seed): \(userId) \(id)") }
        }
        let memberPairs = state.channels.values.reduce(0) { $0 + $1.members.count }
        #expect(state.memberships.values.reduce(0) { $0 + $1.count } == memberPairs, "seed \(seed)")
    }
}
