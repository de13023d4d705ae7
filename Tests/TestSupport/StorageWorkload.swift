import ChatAPI
import ChatServer

/// Drives a server with seeded random requests of every kind that changes stored state, from
/// a few users' devices, with time passing (so mutes and rate limits expire) — errors are
/// part of the mix (a refused request must change nothing on disk either).
public struct StorageWorkload {
    public let users = ["ann", "ben", "cat", "dan", "eve"]
    public var generator: SeededGenerator
    public var channelIds: [String] = []
    public var messageIds: [String: [String]] = [:]

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// Runs `steps` requests on `server` (registering the users first), advancing `clock`.
    public mutating func run(_ steps: Int, on server: ChatServer, clock: ManualClock) async throws {
        try await server.registerUser(id: "root", displayName: "Root", isAdmin: true)
        var transports: [String: any ChatTransport] = [:]
        for user in users {
            let transport = server.connection(userId: user)
            _ = try await transport.connect(resumingAfter: nil)
            transports[user] = transport
        }
        for _ in 0..<steps {
            let user = users.randomElement(using: &generator)!
            if let request = nextRequest(by: user) {
                if let response = try? await transports[user]!.send(request).response {
                    record(response)
                }
            }
            if Int.random(in: 0..<10, using: &generator) == 0 {
                clock.advance(by: Double.random(in: 0...30, using: &generator))
            }
        }
        for transport in transports.values { await transport.disconnect() }
    }

    private mutating func record(_ response: ChatResponse) {
        switch response {
        case .channel(let channel) where !channelIds.contains(channel.channelId):
            channelIds.append(channel.channelId)
        case .message(let message) where !(messageIds[message.channelId]?.contains(message.messageId) ?? false):
            messageIds[message.channelId, default: []].append(message.messageId)
        default:
            break
        }
    }

    private mutating func nextRequest(by user: String) -> ChatRequest? {
        let others = users.filter { $0 != user }
        let some = Array(others.shuffled(using: &generator).prefix(Int.random(in: 1...2, using: &generator)))
        guard let channel = channelIds.randomElement(using: &generator), Int.random(in: 0..<12, using: &generator) != 0
        else {
            let type: ChannelType = Bool.random(using: &generator) ? .community : .conversation
            return .createChannel(
                ChannelDraft(
                    type: type, userIds: some, displayName: "Room \(Int.random(in: 0..<100, using: &generator))",
                    tags: Bool.random(using: &generator) ? ["fun"] : [],
                    metadata: ["n": .number(Double(channelIds.count))]))
        }
        let message = messageIds[channel]?.randomElement(using: &generator)
        switch Int.random(in: 0..<22, using: &generator) {
        case 0...6:
            return .sendMessage(
                MessageDraft(
                    channelId: channel, text: "hello \(Int.random(in: 0..<1000, using: &generator))",
                    mentionedUserIds: Bool.random(using: &generator) ? [some[0]] : []))
        case 7:
            return message.map { .editMessage(messageId: $0, draft: MessageDraft(channelId: channel, text: "edited")) }
        case 8: return message.map { .deleteMessage(channelId: channel, messageId: $0) }
        case 9: return .joinChannel(channelId: channel)
        case 10: return .leaveChannel(channelId: channel)
        case 11: return .banMembers(channelId: channel, userIds: [some[0]])
        case 12: return .unbanMembers(channelId: channel, userIds: [some[0]])
        case 13:
            return .muteMembers(
                channelId: channel, userIds: [some[0]], period: Bool.random(using: &generator) ? 60 : -1)
        case 14: return .addRole("moderator", channelId: channel, userIds: [some[0]])
        case 15: return message.map { .flagMessage(channelId: channel, messageId: $0) }
        case 16: return .flagUser(channelId: channel, userId: some[0])
        case 17:
            return .setModerationSettings(
                channelId: channel, ModerationSettings(blockedWords: ["darn"], blockedWordAction: .mask))
        case 18: return .muteChannel(channelId: channel, period: 45)
        case 19: return .setRateLimit(channelId: channel, period: 120, limit: 3, window: 10)
        case 20: return .startReading(channelId: channel)
        default:
            return Bool.random(using: &generator)
                ? .updateCurrentUser(
                    displayName: "\(user) \(Int.random(in: 0..<9, using: &generator))", metadata: ["k": .bool(true)])
                : .updateChannel(ChannelChanges(channelId: channel, displayName: "Renamed", tags: ["news"]))
        }
    }
}
