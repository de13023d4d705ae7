@testable import ChatAPI
import Foundation
import Testing
import TestSupport

/// Event frames are written around their event's JSON, shared by the envelopes of one change:
/// whatever is shared, every frame is the JSON object the whole-value encoding gives, with its
/// own sequence; replacing an envelope's event never sends the old JSON.
@Suite struct SharedEventEncodingTests {
    /// A random event of every kind, with text that needs escaping, nested metadata, versions
    /// and fractional dates.
    private static func event(_ random: inout SeededGenerator) -> ChatEvent {
        func text() -> String {
            let pieces = ["a", "ü", "\"", "\\", "/", "\n", "💬", "x y", "\u{7}", "é"]
            return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
        }
        func date() -> Date {
            Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random)) + 0.25)
        }
        func metadata() -> [String: JSON] {
            Bool.random(using: &random)
                ? [:]
                : ["k\(text())": .object(["n": .number(1.5), "a": .array([.null, .bool(true), .string(text())])])]
        }
        var channel = Channel(
            channelId: "c\(Int.random(in: 0...9, using: &random))", type: .community, metadata: metadata(),
            tags: [text()], displayName: Bool.random(using: &random) ? text() : nil,
            memberCount: Int.random(in: 0...100, using: &random), createdAt: date(), lastMessageAt: date())
        channel.version = Int.random(in: 0...1_000_000, using: &random)
        var message = Message(
            messageId: "m\(text())", channelId: channel.channelId, sequence: Int.random(in: 1...1_000, using: &random),
            userId: "u", text: text(), mentionedUserIds: ["b"], metadata: metadata(), createdAt: date(),
            editedAt: Bool.random(using: &random) ? date() : nil)
        message.version = Int.random(in: 0...1_000_000, using: &random)
        var user = User(
            userId: "u\(text())", displayName: text(), metadata: metadata(), createdAt: date(), lastActiveAt: date())
        user.version = Int.random(in: 0...1_000_000, using: &random)
        var member = ChannelMember(
            channelId: channel.channelId, userId: user.userId, roles: ["moderator"], mutedUntil: date(), isMuted: true,
            joinedAt: date(), readSequence: 3, user: Bool.random(using: &random) ? user : nil)
        member.version = channel.version
        let all: [ChatEvent] = [
            .channelCreated(channel), .channelUpdated(channel), .channelDeleted(channel),
            .memberAdded(member, channel: channel), .memberRemoved(member, channel: channel),
            .memberBanned(member, channel: channel), .memberUnbanned(member, channel: channel),
            .memberMuted(member), .memberUnmuted(member), .memberRoleChanged(member),
            .messageNew(message, channel: channel), .messageUpdated(message), .messageDeleted(message),
            .readMarkerMoved(member, channel: channel), .typingStarted(channelId: channel.channelId, userId: text()),
            .typingStopped(channelId: channel.channelId, userId: "b"), .userUpdated(user), .presenceChanged(user),
        ]
        return all.randomElement(using: &random)!
    }

    /// The JSON object a frame's text holds, for comparing two writings of it.
    private func object(_ text: String) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    @Test func sharedFramesAreTheWholeEncodingWithTheirOwnSequence() throws {
        let seed = SeededGenerator.testSeed(0x5EED_E7E7)
        var random = SeededGenerator(seed: seed)
        for round in 0..<500 {
            let event = Self.event(&random)
            let shared = SharedEventEncoding()
            // Several devices, each with its own sequence, one encoding between them.
            for device in 0..<3 {
                let envelope = EventEnvelope(sequence: round * 3 + device + 1, event: event, sharing: shared)
                let text = try WireCodec.encode(.event(envelope))
                let whole = try WireCodec.encodeWhole(.event(envelope))
                #expect(try object(text) == object(whole), "seed \(seed), round \(round): \(text) vs \(whole)")
                guard case .event(let decoded) = try WireCodec.decode(text) else {
                    Issue.record("seed \(seed), round \(round): \(text)")
                    continue
                }
                #expect(decoded == envelope && decoded.sequence == envelope.sequence, "seed \(seed), round \(round)")
            }
            // Unshared, the same frame.
            let alone = EventEnvelope(sequence: 7, event: event)
            #expect(
                try object(WireCodec.encode(.event(alone))) == object(WireCodec.encodeWhole(.event(alone))),
                "seed \(seed)")
        }
    }

    @Test func anEnvelopeWhoseEventIsReplacedStopsSharing() throws {
        let shared = SharedEventEncoding()
        let first = EventEnvelope(
            sequence: 1, event: .typingStarted(channelId: "ops", userId: "alice"), sharing: shared)
        _ = try WireCodec.encode(.event(first))  // the shared JSON now holds alice's event
        var second = EventEnvelope(
            sequence: 2, event: .typingStarted(channelId: "ops", userId: "alice"), sharing: shared)
        second.event = .typingStopped(channelId: "ops", userId: "bob")
        #expect(second.sharedEncoding == nil)
        #expect(try WireCodec.decode(WireCodec.encode(.event(second))) == .event(second))
        // A new sequence keeps sharing: only the event's JSON is shared.
        var third = first
        third.sequence = 9
        #expect(third.sharedEncoding === shared)
        #expect(try WireCodec.decode(WireCodec.encode(.event(third))) == .event(third))
    }

    @Test func sharingIsNotPartOfTheValue() throws {
        let event = ChatEvent.typingStarted(channelId: "ops", userId: "alice")
        let shared = EventEnvelope(sequence: 1, event: event, sharing: SharedEventEncoding())
        let plain = EventEnvelope(sequence: 1, event: event)
        #expect(shared == plain && shared.hashValue == plain.hashValue)
        let data = try JSONEncoder().encode(shared)
        #expect(try JSONDecoder().decode(EventEnvelope.self, from: data) == plain)
        #expect(String(decoding: data, as: UTF8.self).contains("sharedEncoding") == false)
    }

    /// Many tasks asking for one shared JSON at once get the same bytes, encoded once.
    @Test func concurrentReadersEncodeOnce() async throws {
        let shared = SharedEventEncoding()
        let encodings = Counter()
        let texts = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<64 {
                group.addTask {
                    shared.json {
                        encodings.increment()
                        return Array("{\"typingStarted\":{}}".utf8)
                    }
                }
            }
            return await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(texts.count == 1)
        #expect(encodings.value == 1)
    }

    private final class Counter: @unchecked Sendable {
        // @unchecked: `count` is only touched under `lock`.
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }
}
