import ChatAPI
import ChatServer
import Foundation
import LiveChannels

/// `Benchmarks outbox`: what the outbox costs on the send path. Bob's messages reach alice's
/// observed client (her channel list and total unread count, as `client.e2e` measures), sent
/// three ways in the same run, one message in flight each:
/// - baseline: bob's raw transport, `sendMessage` requests without an id (each awaits its answer);
/// - `MessageRepository.sendMessage` from bob's `ChatClient` (an id of its own, the answer applied
///   to bob's cache and lists);
/// - `MessageRepository.createMessage` from bob's `ChatClient`: each message made on the device
///   (a local row in bob's open message list), then sent by the outbox in creation order and
///   replaced in place by the server's answer.
/// Each figure is the time until alice's total shows every message, per message.
enum OutboxBenchmark {
    static func run() async {
        do {
            try await measure()
        } catch {
            print("outbox benchmark failed: \(error)")
        }
    }

    static func measure() async throws {
        let messages = 5_000
        let rounds = 5
        enum Path: CaseIterable { case transport, sendMessage, outbox }
        var samples: [Path: [Double]] = [:]
        for _ in 0..<rounds {
            for path in Path.allCases {
                let server = ChatServer()
                let (aliceLink, bobLink) = try await ClientBenchmark.room(on: server)
                await aliceLink.disconnect()
                let (_, total, token, _) = try await ClientBenchmark.observedClient(
                    server.connection(userId: "alice", deviceId: "phone"))
                let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "laptop"))
                try await bob.connect()
                let repository = MessageRepository(client: bob)
                let bobsList = repository.getMessages(channelId: "room")
                for await update in bobsList.updates where update.loadingStatus == .loaded { break }
                let (reached, signal) = AsyncStream.makeStream(of: Void.self)
                let watcher = total.observe(on: .synchronous) { object, _ in
                    if object.snapshot == messages { signal.yield(); signal.finish() }
                }
                let seconds = try await Harness.once {
                    switch path {
                    case .transport:
                        try await ClientBenchmark.send(messages, from: bobLink, inFlight: 1)
                    case .sendMessage:
                        for index in 0..<messages {
                            try await repository.sendMessage(channelId: "room", text: "m\(index)", mentionedUserIds: [])
                        }
                    case .outbox:
                        for index in 0..<messages {
                            try repository.createMessage(channelId: "room", text: "m\(index)")
                        }
                    }
                    for await _ in reached { break }
                }
                precondition(server.messages(channelId: "room").count == messages, "a message was lost or doubled")
                samples[path, default: []].append(seconds)
                watcher.invalidate()
                token.invalidate()
                await bob.close()
            }
        }
        print("## outbox — what the outbox costs on the send path\n")
        print(
            "\(messages) messages from bob's client to alice's observed client (channel list + total unread), "
                + "one in flight; bob's own message list open. \(rounds) rounds, interleaved.\n")
        func median(_ path: Path) -> Double {
            let sorted = samples[path]!.sorted()
            return sorted[sorted.count / 2]
        }
        let baseline = median(.transport)
        func row(_ name: String, _ path: Path) -> [String] {
            let value = median(path)
            return [
                name, Harness.format(value / Double(messages)), "\(Int(Double(messages) / value))",
                String(format: "%.2f×", value / baseline),
            ]
        }
        Harness.table(
            ["path", "per message (median)", "messages/s", "÷ baseline"],
            [
                row("baseline: bob's transport, sendMessage requests, each awaited", .transport),
                row("MessageRepository.sendMessage (an id of its own), each awaited", .sendMessage),
                row("MessageRepository.createMessage: the outbox sends them in order", .outbox),
            ])
        print()
    }
}
