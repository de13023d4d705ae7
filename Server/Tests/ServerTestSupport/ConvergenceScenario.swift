import ChatAPI
import Foundation
import TestSupport
import LiveChannels
import Testing

/// The seeded multi-client scenario the network convergence tests share: three users (alice on
/// two devices) keep channel lists open while a seeded sequence of creates, joins, leaves,
/// sends, reads, bans and dropped connections runs; then every client heals and must show
/// exactly what the server answers.
package struct ConvergenceScenario {
    package static let devices: [(user: String, device: String)] = [
        ("alice", "phone"), ("alice", "laptop"), ("bob", "phone"), ("carol", "phone"),
    ]
    package static let users = ["alice", "bob", "carol"]
    package static let listQuery = ChannelListQuery(sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 100)

    package let seed: UInt64
    package let clients: [ChatClient]
    package let lists: [LiveCollection<Channel>]
    package private(set) var channels: [String] = []
    /// The texts of the messages the server acknowledged.
    package private(set) var acknowledged: [String] = []

    package init(seed: UInt64, clients: [ChatClient]) {
        self.seed = seed
        self.clients = clients
        lists = clients.map { ChannelRepository(client: $0).getChannels(query: Self.listQuery) }
    }

    /// Creates three channels, then runs `steps` seeded steps; `drop` ends a device's connection
    /// (by its index), `before` runs before each step (for faults at seeded steps).
    package mutating func play(
        steps: Int, random: inout SeededGenerator, drop: (Int) async -> Void,
        before: (Int) async throws -> Void = { _ in }
    ) async throws {
        for (index, client) in clients.enumerated().prefix(3) {
            let builder = CommunityChannelBuilder()
            builder.setId("start\(index)")
            builder.setUserIds(Self.users.filter { _ in random.next() % 2 == 0 })
            _ = try await ChannelRepository(client: client).createChannel(with: builder)
            channels.append("start\(index)")
        }
        for step in 0..<steps {
            try await before(step)
            let index = Int(random.next() % UInt64(clients.count))
            let client = clients[index]
            let user = Self.devices[index].user
            let channel = channels.isEmpty ? nil : channels[Int(random.next() % UInt64(channels.count))]
            switch random.next() % 10 {
            case 0, 1:
                let id = "c\(step)"
                let builder = CommunityChannelBuilder()
                builder.setId(id)
                builder.setUserIds(Self.users.filter { $0 != user && random.next() % 2 == 0 })
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
                    if (try? await MessageRepository(client: client).sendMessage(
                        channelId: channel, text: "s\(step)", mentionedUserIds: [])) != nil
                    {
                        acknowledged.append("s\(step)")
                    }
                }
            case 7:
                if let channel { try? await ChannelParticipation(client: client, channelId: channel).startReading() }
            case 8:
                if let channel {
                    let target = Self.users[Int(random.next() % 3)]
                    _ = try? await ChannelModeration(client: client, channelId: channel).banMembers([target])
                    if random.next() % 2 == 0 {
                        _ = try? await ChannelModeration(client: client, channelId: channel).unbanMembers([target])
                    }
                }
            default:
                await drop(Int(random.next() % UInt64(clients.count)))
            }
        }
    }

    /// Heals: every client connected again (proved by a request that goes through), within
    /// `attempts` tries 20 ms apart.
    package func heal(attempts: Int = 500) async throws {
        for client in clients {
            var healed = false
            for _ in 0..<attempts where !healed {
                switch client.connectionState.snapshot {
                case .connected?:
                    healed = (try? await UserRepository(client: client).getUser(userId: client.currentUserId)) != nil
                case .disconnected?:
                    // The reconnect policy gave up (its attempts raced the faults): connect again,
                    // as an app does.
                    try? await client.connect()
                default:
                    break
                }
                if !healed { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(healed, "seed \(seed): \(client.currentUserId)/\(client.transport.deviceId) does not reconnect")
        }
    }

    /// Checks every client's list against `oracle`'s answer for its user (and the total unread
    /// count against `totalUnread`'s, when given).
    package func check(
        oracle: (String) async throws -> [Channel], totalUnread: ((String) -> Int)? = nil
    ) async throws {
        for (client, list) in zip(clients, lists) {
            await client.synchronize()
            for await update in list.updates where update.loadingStatus != .loading { break }
            await client.synchronize()
            let user = client.currentUserId
            let expected = try await oracle(user)
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
                events \(client.transport.lastEventSequence)): \(describe(list.snapshots)) ≠ \(describe(expected))
                """)
            if let totalUnread {
                #expect(
                    ChannelRepository(client: client).totalUnreadCount == totalUnread(user), "seed \(seed), \(user)")
            }
        }
    }
}

extension WebSocketTransport {
    /// Runs `body` connected, then disconnects.
    package func withConnection<Result: Sendable>(_ body: (WebSocketTransport) async throws -> Result) async throws
        -> Result
    {
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
