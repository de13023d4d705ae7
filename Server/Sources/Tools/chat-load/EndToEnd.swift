import ArgumentParser
import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveChannelsNIO
import NIOConcurrencyHelpers

/// The SDK end to end: one `ChatClient` sends (`MessageRepository.sendMessage`), another's live
/// message list shows it — through `WebSocketTransport` and the NIO connector to a gateway on
/// loopback, beside the same two clients on the server in process (`server.connection`), so the
/// network's cost per message is the difference.
struct EndToEnd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk", abstract: "Send → another client's live list, over the wire beside in process.")

    @Option(help: "Messages per second of the paced run.") var rate = 500
    @Option(help: "Seconds of each run.") var seconds = 5.0

    func run() async throws {
        for paced in [true, false] {
            print(paced ? "sdk end to end at \(rate) msg/s:" : "sdk end to end, one message at a time:")
            let server = ChatServer()
            try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
            let inProcess = try await Self.measure(
                paced: paced, rate: rate, seconds: seconds,
                sender: ChatClient(transport: server.connection(userId: "alice", deviceId: "sdk")),
                receiver: ChatClient(transport: server.connection(userId: "bob", deviceId: "sdk")))
            print(Latency.line("in process (server.connection)", inProcess))
            let wired = ChatServer()
            try await wired.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
            let overTheWire = try await withGateway(server: wired) { port in
                func client(_ user: String) -> ChatClient {
                    ChatClient(
                        transport: WebSocketTransport(
                            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: user, deviceId: "sdk",
                            token: { "dev:\(user)" }, connector: NIOWebSocketConnector()))
                }
                return try await Self.measure(
                    paced: paced, rate: rate, seconds: seconds, sender: client("alice"), receiver: client("bob"))
            }
            print(Latency.line("over the wire (WebSocketTransport + NIO, loopback)", overTheWire))
        }
    }

    /// Sends for `seconds` — paced at `rate`, or each send awaited before the next — each text
    /// stamped with its send time; the receiver's live message list records when each stamp
    /// first shows.
    static func measure(
        paced: Bool, rate: Int, seconds: Double, sender: ChatClient, receiver: ChatClient
    ) async throws -> (latencies: [Double], seconds: Double) {
        try await sender.connect()
        try await receiver.connect()
        let clock = ContinuousClock()
        let origin = clock.now
        @Sendable func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
            let elapsed = instant - origin
            return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        }
        let list = MessageRepository(client: receiver).getMessages(channelId: "room", pageSize: 20)
        _ = await list.updates.first { $0.loadingStatus == .loaded }
        let seen = NIOLockedValueBox((lastSequence: 0, latencies: [Double]()))
        let token = list.observe(on: .synchronous) { _, _, _ in
            let now = nanoseconds(clock.now)
            // The new messages are at the end: walk back to the last one seen (O(new ones)).
            seen.withLockedValue { seen in
                var index = list.count - 1
                let newest = list.object(at: index)?.sequence ?? 0
                while index >= 0, let message = list.object(at: index), message.sequence > seen.lastSequence {
                    if let stamp = Int64(message.text.dropFirst(2)) { seen.latencies.append(Double(now - stamp) / 1e9) }
                    index -= 1
                }
                seen.lastSequence = max(seen.lastSequence, newest)
            }
        }
        let messages = MessageRepository(client: sender)
        let start = clock.now
        let end = start + .milliseconds(Int(seconds * 1_000))
        var sends: [Task<Void, Never>] = []
        var index = 0
        while clock.now < end {
            let text = "t=\(nanoseconds(clock.now))"
            if paced {
                sends.append(
                    Task { _ = try? await messages.sendMessage(channelId: "room", text: text, mentionedUserIds: []) })
                index += 1
                let due = start + .nanoseconds(Int64(index) * 1_000_000_000 / Int64(rate))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            } else {
                _ = try await messages.sendMessage(channelId: "room", text: text, mentionedUserIds: [])
                index += 1
            }
        }
        for send in sends { await send.value }
        await receiver.synchronize()
        let elapsed = clock.now - start
        token.invalidate()
        await sender.close()
        await receiver.close()
        let latencies = seen.withLockedValue { $0.latencies }
        return (latencies, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
