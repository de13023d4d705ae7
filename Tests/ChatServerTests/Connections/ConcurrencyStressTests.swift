import ChatAPI
import ChatServer
import Foundation
import Testing
import TestSupport

@Suite struct ConcurrencyStressTests {
    /// Many devices send, read, type and query at once. Afterwards every channel's sequence
    /// numbers are 1…n without gaps or duplicates, every message is stored once, and every
    /// device's event stream is numbered 1…last without gaps.
    @Test func concurrentSendersKeepSequencesAndEventStreamsGapFree() async throws {
        let seed = SeededGenerator.testSeed(0x5EED_0070)
        let users = (0..<8).map { "user\($0)" }
        let channels = (0..<4).map { "room\($0)" }
        let server = ChatServer(clock: ManualClock())
        for user in users { try await server.registerUser(id: user) }
        for channel in channels { try await server.createChannel(type: .community, channelId: channel, userIds: users) }
        let messagesPerDevice = 25

        let streams = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (userIndex, user) in users.enumerated() {
                for deviceId in ["phone", "laptop"] {
                    group.addTask {
                        var random = SeededGenerator(
                            seed: seed &+ UInt64(userIndex * 2 + (deviceId == "phone" ? 0 : 1)))
                        var device = TestDevice(server, user, deviceId)
                        try await device.connect()
                        for index in 0..<messagesPerDevice {
                            let channel = channels.randomElement(using: &random)!
                            try await device.send(
                                .sendMessage(MessageDraft(channelId: channel, text: "\(user)/\(deviceId)/\(index)")))
                            switch Int.random(in: 0..<4, using: &random) {
                            case 0: try await device.send(.queryChannels(ChannelListQuery(pageSize: 5), after: nil))
                            case 1: try await device.send(.startReading(channelId: channel))
                            case 2: try await device.send(.stopReading(channelId: channel))
                            default: try await device.send(.startTyping(channelId: channel))
                            }
                        }
                        return await device.drain().map(\.sequence)
                    }
                }
            }
            var all: [[Int]] = []
            for try await sequences in group { all.append(sequences) }
            return all
        }

        var total = 0
        for channel in channels {
            let messages = server.messages(channelId: channel)
            total += messages.count
            #expect(messages.map(\.sequence) == Array(0..<messages.count).map { $0 + 1 }, "seed \(seed)")
            #expect(server.channel(channel)?.lastSequence == messages.count, "seed \(seed)")
        }
        #expect(total == users.count * 2 * messagesPerDevice, "seed \(seed)")
        let texts = channels.flatMap { server.messages(channelId: $0).map(\.text) }
        #expect(Set(texts).count == texts.count, "seed \(seed)")
        #expect(streams.count == users.count * 2)
        for sequences in streams {
            #expect(!sequences.isEmpty && sequences == Array(1...sequences.count), "seed \(seed)")
        }
    }
}
