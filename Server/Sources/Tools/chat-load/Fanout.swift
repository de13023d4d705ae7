import ArgumentParser
import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveChannelsNIO
import NIOConcurrencyHelpers

/// Deliveries per second in a channel of `members` connected members, one of them sending,
/// beside the floor: a bare Hummingbird WebSocket broadcast of the same bytes to as many
/// connections.
struct Fanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deliveries per second in a 100-member channel, beside a bare broadcast.")

    @Option(help: "Members connected to the channel (the sender among them).") var members = 100
    @Option(help: "Messages sent.") var messages = 2_000
    @Option(help: "Requests in flight at once.") var window = 64

    func run() async throws {
        print("fanout: \(members) connections, \(messages) messages, \(members * messages) deliveries each way")
        let floor = try await withServices(FloorServer().services(onRunning:)) { port in
            try await measureFloor(port: port)
        }
        let ours = try await measureChat()
        print(String(format: "  floor (bare Hummingbird broadcast): %.0f deliveries/s", floor))
        print(
            String(
                format: "  chat-server (protocol, rules, JSON): %.0f deliveries/s = %.2f× the floor", ours, ours / floor
            ))
    }

    /// Counts the frames of each connection for which `isDelivery(index, frame)` holds, until each
    /// saw `target`.
    static func receive(
        _ clients: [any WebSocketConnection], target: Int, isDelivery: @escaping @Sendable (Int, String) -> Bool
    ) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        var seen = 0
                        for await item in client.inbound {
                            if case .text(let text) = item, isDelivery(index, text) {
                                seen += 1
                                if seen == target { return }
                            }
                        }
                    }
                }
            }
        }
    }

    func measureFloor(port: Int) async throws -> Double {
        var clients: [any WebSocketConnection] = []
        for _ in 0..<members {
            clients.append(try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast"))
        }
        let sample = try Self.sampleEvent()
        // The same test of each frame as the chat run makes: the clients' work is equal.
        let receiving = Self.receive(clients, target: messages) { _, text in FrameText.contains(text, "\"messageNew\"")
        }
        let start = ContinuousClock.now
        for _ in 0..<messages { try await clients[0].send(sample) }
        await receiving.value
        let seconds =
            Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        for client in clients { await client.close(code: 1000, reason: "") }
        return Double(members * messages) / seconds
    }

    private func measureChat() async throws -> Double {
        let server = ChatServer()
        let users = (0..<members).map { "u\($0)" }
        try await server.createChannel(type: .community, channelId: "room", userIds: users)
        return try await withGateway(server: server) { port in
            var clients: [RawClient] = []
            for user in users { clients.append(try await RawClient.connect(port: port, user: user)) }
            let inFlight = Semaphore(window)
            let receiving = Self.receive(clients.map(\.connection), target: messages) { index, text in
                // The sender's answers free places in its window.
                if index == 0, FrameText.isAnswer(text) {
                    inFlight.signal()
                }
                return FrameText.contains(text, "\"messageNew\"")
            }
            let sender = clients[0].connection
            let start = ContinuousClock.now
            for index in 0..<messages {
                await inFlight.wait()
                let frame = try WireCodec.encode(
                    .request(id: index, request: .sendMessage(MessageDraft(channelId: "room", text: "m\(index)"))))
                try await sender.send(frame)
            }
            await receiving.value
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            for client in clients { await client.connection.close(code: 1000, reason: "") }
            return Double(members * messages) / seconds
        }
    }

    /// A `messageNew` event frame as the server sends it, for the floor to broadcast.
    static func sampleEvent() throws -> String {
        var channel = Channel(channelId: "room", type: .community, memberCount: 100, lastSequence: 42)
        channel.version = 1_234
        let message = Message(
            messageId: "message-42", channelId: "room", sequence: 42, userId: "u0", text: "m41", createdAt: Date())
        return try WireCodec.encode(.event(EventEnvelope(sequence: 84, event: .messageNew(message, channel: channel))))
    }
}

/// A counting semaphore for pacing (`wait` suspends while none is free).
final class Semaphore: Sendable {
    private let state: NIOLockedValueBox<(free: Int, waiters: [CheckedContinuation<Void, Never>])>
    init(_ count: Int) { state = NIOLockedValueBox((count, [])) }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                if state.free > 0 { state.free -= 1; return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func signal() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty { state.free += 1; return nil }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }
}

/// Opens plain WebSocket connections (the floor has no protocol).
enum NIOConnect {
    static func open(_ url: String) async throws -> any WebSocketConnection {
        try await NIOWebSocketConnector().connect(WebSocketRequest(url: URL(string: url)!, pingInterval: .seconds(600)))
    }
}
