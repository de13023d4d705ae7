import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

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
            let devices: [(user: String, device: String)] = [
                ("alice", "phone"), ("alice", "laptop"), ("bob", "phone"), ("carol", "phone"),
            ]
            var clients: [ChatClient] = []
            for (user, device) in devices { clients.append(try await harness.client(user, deviceId: device)) }
            let lists = clients.map {
                ChannelRepository(client: $0).getChannels(
                    query: ChannelListQuery(sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 100))
            }
            let users = ["alice", "bob", "carol"]
            var channels: [String] = []
            for (index, client) in clients.enumerated().prefix(3) {
                let builder = CommunityChannelBuilder()
                builder.setId("start\(index)")
                builder.setUserIds(users.filter { _ in random.next() % 2 == 0 })
                _ = try await ChannelRepository(client: client).createChannel(with: builder)
                channels.append("start\(index)")
            }
            for step in 0..<80 {
                let index = Int(random.next() % UInt64(clients.count))
                let client = clients[index]
                let user = devices[index].user
                let channel = channels.isEmpty ? nil : channels[Int(random.next() % UInt64(channels.count))]
                switch random.next() % 10 {
                case 0, 1:
                    let id = "c\(step)"
                    let builder = CommunityChannelBuilder()
                    builder.setId(id)
                    builder.setUserIds(users.filter { $0 != user && random.next() % 2 == 0 })
                    if (try? await ChannelRepository(client: client).createChannel(with: builder)) != nil {
                        channels.append(id)
                    }
                case 2:
                    if let channel { _ = try? await ChannelRepository(client: client).joinChannel(channelId: channel) }
                case 3:
                    if let channel { try? await ChannelRepository(client: client).leaveChannel(channel) }
                case 4, 5, 6:
                    if let channel {
                        // Joined first half the time, so that most sends land.
                        if random.next() % 2 == 0 {
                            _ = try? await ChannelRepository(client: client).joinChannel(channelId: channel)
                        }
                        _ = try? await MessageRepository(client: client).sendMessage(
                            channelId: channel, text: "s\(step)", mentionedUserIds: [])
                    }
                case 7:
                    if let channel {
                        try? await ChannelParticipation(client: client, channelId: channel).startReading()
                    }
                case 8:
                    if let channel {
                        let target = users[Int(random.next() % 3)]
                        _ = try? await ChannelModeration(client: client, channelId: channel).banMembers([target])
                        if random.next() % 2 == 0 {
                            _ = try? await ChannelModeration(client: client, channelId: channel).unbanMembers([target])
                        }
                    }
                default:
                    let (dropUser, dropDevice) = devices[Int(random.next() % UInt64(devices.count))]
                    server.faults.dropConnection(userId: dropUser, deviceId: dropDevice)
                }
            }
            // Not vacuous: channels were made and messages sent.
            #expect(!channels.isEmpty && channels.contains { !server.messages(channelId: $0).isEmpty }, "seed \(seed)")
            // Heal: every client connected again (a drop is learnt asynchronously: a request that
            // goes through proves the connection), everything applied.
            for client in clients {
                var healed = false
                for _ in 0..<500 where !healed {
                    switch client.connectionState.snapshot {
                    case .connected?:
                        healed =
                            (try? await UserRepository(client: client).getUser(userId: client.currentUserId)) != nil
                    case .disconnected?:
                        // The reconnect policy gave up (its attempts raced the drops): connect
                        // again, as an app does.
                        try? await client.connect()
                    default:
                        break
                    }
                    if !healed { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(healed, "seed \(seed): \(client.currentUserId)/\(client.transport.deviceId) does not reconnect")
            }
            for (client, list) in zip(clients, lists) {
                await client.synchronize()
                for await update in list.updates where update.loadingStatus != .loading { break }
                await client.synchronize()
                let user = client.currentUserId
                let expected = try await harness.transport(user, deviceId: "oracle-\(seed)").withConnection { oracle in
                    try await oracle.send(
                        .queryChannels(
                            ChannelListQuery(sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 100),
                            after: nil)
                    ).channelsValue?.items ?? []
                }
                func describe(_ channels: [Channel]) -> String {
                    channels.map {
                        "\($0.channelId) v\($0.version) \($0.currentUserMembership) m\($0.memberCount) s\($0.lastSequence) r\($0.readSequence)"
                    }
                    .joined(separator: ", ")
                }
                #expect(
                    list.snapshots == expected,
                    """
                    seed \(seed), \(user)/\(client.transport.deviceId) (\(String(describing: client.connectionState.snapshot)), \
                    events \(client.transport.lastEventSequence) of \(server.lastEventSequence(userId: user, deviceId: client.transport.deviceId))): \
                    \(describe(list.snapshots)) ≠ \(describe(expected))
                    """)
                #expect(
                    ChannelRepository(client: client).totalUnreadCount == server.totalUnreadCount(userId: user),
                    "seed \(seed), \(user)")
            }
        }
    }
}

extension WebSocketTransport {
    /// Runs `body` connected, then disconnects.
    func withConnection<Result: Sendable>(_ body: (WebSocketTransport) async throws -> Result) async throws -> Result {
        _ = try await connect(resumingAfter: nil)
        do {
            let result = try await body(self)
            await disconnect()
            return result
        } catch {
            await disconnect()
            throw error
        }
    }
}
