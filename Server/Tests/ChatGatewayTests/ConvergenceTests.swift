import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing
import ServerTestSupport
import TestSupport

/// A seeded multi-client run over loopback against a real `ChatGateway`: three users (alice on
/// two devices) keep channel lists and unread totals open while a seeded sequence of creates,
/// joins, leaves, sends, reads, bans and dropped connections runs; after healing, every client
/// shows exactly the server's view. (The root package runs the full convergence scenarios, 500
/// seeds, through the embedded door and 100 through the wire protocol in memory.)
@Suite(.timeLimit(.minutes(2))) struct ConvergenceTests {
    /// Seeds 1…5, or the one `NETWORK_SEED` names (to replay a failure).
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["NETWORK_SEED"].flatMap(UInt64.init).map { [$0] } ?? [1, 2, 3, 4, 5]

    @Test(arguments: seeds)
    func clientsConvergeOverTheNetwork(seed: UInt64) async throws {
        try await GatewayHarness.run { harness in
            var random = SeededGenerator(seed: seed)
            let server = harness.server
            var clients: [ChatClient] = []
            for (user, device) in ConvergenceScenario.devices {
                clients.append(try await harness.client(user, deviceId: device))
            }
            var scenario = ConvergenceScenario(seed: seed, clients: clients)
            try await scenario.play(steps: 80, random: &random) { index in
                let (user, device) = ConvergenceScenario.devices[index]
                server.faults.dropConnection(userId: user, deviceId: device)
            }
            // Not vacuous: channels were made and messages sent.
            let channels = scenario.channels
            #expect(!channels.isEmpty && channels.contains { !server.messages(channelId: $0).isEmpty }, "seed \(seed)")
            try await scenario.heal()
            try await scenario.check(
                oracle: { user in
                    try await harness.transport(user, deviceId: "oracle-\(seed)").withConnection { oracle in
                        try await oracle.send(.queryChannels(ConvergenceScenario.listQuery, after: nil)).channelsValue?
                            .items ?? []
                    }
                },
                totalUnread: { server.totalUnreadCount(userId: $0) })
        }
    }
}
