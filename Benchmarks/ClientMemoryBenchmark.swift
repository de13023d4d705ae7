import ChatAPI
import ChatServer
import Foundation
@_spi(Benchmarks) import LiveChannels

/// `Benchmarks client.memory`: a client's memory over a long run of messages in the channels
/// it observes, with its message retention (the default) beside a client that keeps every
/// message, in the same run.
///
/// Alice is a member of 50 live channels; she observes the list of her channels, five channel
/// objects, her total unread count and the message list of one channel. Bob sends 300,000
/// messages round-robin over the 50 channels (so the open list's channel gets 6,000 of them,
/// which it shows: a list holds what it lists). The server keeps 50 messages per channel, so
/// what grows is the client. Resident memory and the messages held in memory are printed at
/// the start and every 10%.
enum ClientMemoryBenchmark {
    static let messages = 300_000
    static let channels = 50

    static func run() async {
        print("## client.memory — \(messages) messages over \(channels) observed channels\n")
        do {
            let bounded = try await measure(keepEverything: false)
            let unbounded = try await measure(keepEverything: true)
            var rows: [[String]] = []
            for (index, sample) in bounded.enumerated() {
                let other = unbounded[index]
                rows.append([
                    "\(sample.messages)", mebibytes(sample.resident - bounded[0].resident), "\(sample.held)",
                    mebibytes(other.resident - unbounded[0].resident), "\(other.held)",
                ])
            }
            Harness.table(
                [
                    "messages", "growth (default retention)", "messages in memory", "growth (every message kept)",
                    "messages in memory",
                ],
                rows)
            print("")
        } catch {
            print("client.memory failed: \(error)")
        }
    }

    struct Sample {
        var messages: Int
        var resident: Int
        var held: Int
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%+.1f MiB", Double(bytes) / 1_048_576) }

    static func measure(keepEverything: Bool) async throws -> [Sample] {
        let server = ChatServer(configuration: ServerConfiguration(messagesPerChannel: 50))
        try await server.registerUser(id: "alice")
        try await server.registerUser(id: "bob")
        let ids = (0..<channels).map { "room-\($0)" }
        for id in ids { try await server.createChannel(type: .live, channelId: id, userIds: ["alice", "bob"]) }
        let transport = server.connection(userId: "alice", deviceId: "phone")
        let client =
            keepEverything
            ? ChatClient.withMessageRetention(nil, transport: transport) : ChatClient(transport: transport)
        try await client.connect()
        let repository = ChannelRepository(client: client)
        let list = repository.getChannels(
            query: ChannelListQuery(filter: .containMembers(userIds: ["alice"]), pageSize: 50))
        let objects = ids.prefix(5).map { repository.getChannel($0) }
        let total = repository.getTotalUnreadCount()
        let messageList = MessageRepository(client: client).getMessages(channelId: ids[0])
        await client.synchronize()

        var samples = [Sample(messages: 0, resident: MemoryProbe.allocatedBytes() ?? 0, held: client.messagesInMemory)]
        for number in 1...messages {
            _ = try await server.sendMessage(as: "bob", channelId: ids[number % channels], text: "message \(number)")
            if number % (messages / 10) == 0 {
                await client.synchronize()
                samples.append(
                    Sample(messages: number, resident: MemoryProbe.allocatedBytes() ?? 0, held: client.messagesInMemory)
                )
            }
        }
        withExtendedLifetime((list, objects, total, messageList)) {}
        await client.close()
        return samples
    }
}
