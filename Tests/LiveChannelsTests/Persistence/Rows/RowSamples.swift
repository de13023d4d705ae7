import ChatAPI
import Foundation
@_spi(Persistence) @testable import LiveChannels
@testable import RowCoding
import TestSupport

/// Values for the row-encoding tests: one of each kind with every stored field set to something
/// other than its default (``RowSamples/assertEveryFieldSet`` checks that, so a field added to a
/// model later must be set here too), and seeded random ones.
enum RowSamples {
    /// Metadata with every kind of JSON value, nested.
    static let metadata: [String: JSON] = [
        "null": .null, "yes": true, "no": false, "int": 42, "negative": -7.25, "tiny": .number(.leastNonzeroMagnitude),
        "big": .number(1.5e300), "text": "naïve café ☕️ 𝄞", "empty": "", "list": [1, "two", [3, nil], ["k": "v"]],
        "object": ["inner": ["deeper": [true, false]], "none": [:]], "emptyList": [],
    ]

    static let user: User = {
        var user = User(
            userId: "u-1", displayName: "Ünïcode Name", metadata: metadata, isAdmin: true,
            createdAt: Date(timeIntervalSinceReferenceDate: 123.456),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000.25),
            isOnline: true, lastActiveAt: .distantFuture)
        user.version = 9_001
        return user
    }()

    static let channel: Channel = {
        var channel = Channel(
            channelId: "channel-1", type: .community, isDistinct: true, metadata: metadata, tags: ["a", "b c", ""],
            isMuted: true, isRateLimited: true, rateLimit: 5, rateLimitWindow: 2.5, displayName: "General 💬",
            memberCount: 1_234, messageCount: -3, lastActivity: Date(timeIntervalSinceReferenceDate: -1e9),
            createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 2),
            avatarFileId: "avatar", creatorId: "creator", isDeleted: true,
            lastMessageAt: Date(timeIntervalSince1970: 3), lastSequence: Int.max, currentUserMembership: .banned,
            readSequence: Int.min, hasMention: true)
        channel.version = 77
        return channel
    }()

    static let member: ChannelMember = {
        var member = ChannelMember(
            channelId: "channel-1", userId: "u-1", roles: ["moderator", "owner"], membership: .banned,
            mutedUntil: .distantFuture, isMuted: true, joinedAt: Date(timeIntervalSince1970: 10), readSequence: 12,
            user: user)
        member.version = 1 << 40
        return member
    }()

    static let message: Message = {
        var message = Message(
            messageId: "m-1", channelId: "channel-1", sequence: 8, userId: "u-1", text: "hello\n\u{0}world",
            mentionedUserIds: ["u-2", "u-3"], metadata: metadata, createdAt: Date(timeIntervalSince1970: 20),
            editedAt: Date(timeIntervalSince1970: 21), isDeleted: true)
        message.version = -1
        message.syncState = .failed(.forbidden("muted"))
        return message
    }()

    /// The values of ``channel``, ``member``, ``message`` and ``user`` made with only the
    /// arguments their initializers require, empty: what "not set" means per field.
    static var defaults: [Any] {
        [
            Channel(channelId: "", type: .standard), ChannelMember(channelId: "", userId: ""),
            Message(messageId: "", channelId: "", sequence: 0, userId: "", text: ""), User(userId: ""),
        ]
    }

    /// The encoded rows of the samples.
    static func rows() throws -> [[UInt8]] {
        try [encode(channel), encode(member), encode(message), encode(user)]
    }

    /// `value`'s row.
    static func encode(_ value: some RowCodable) throws -> [UInt8] {
        var writer = RowWriter()
        try value.encodeRow(to: &writer)
        return writer.bytes
    }

    /// Every stored field of `value`, by name, as text; a copy-on-write box (a class) and its
    /// `fields` are looked through, so a `Channel` lists its own fields.
    static func storedFields(of value: Any) -> [String: String] {
        var fields: [String: String] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            if Mirror(reflecting: child.value).displayStyle == .class || label == "fields" {
                fields.merge(storedFields(of: child.value)) { first, _ in first }
            } else {
                fields[label] = String(describing: child.value)
            }
        }
        return fields
    }

    /// The names of the fields of `value` that have the same value as in `empty`: none, for a
    /// sample that sets every field.
    static func unsetFields(of value: Any, comparedWith empty: Any) -> [String] {
        let set = storedFields(of: value)
        let unset = storedFields(of: empty)
        return set.keys.filter { set[$0] == unset[$0] }.sorted()
    }

    // MARK: Random values

    /// A random string: ASCII, accented and astral characters, sometimes empty.
    static func string(using generator: inout SeededGenerator) -> String {
        let alphabet = Array("ab Z9_-é漢😀\u{0}\n")
        return String(
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A random JSON value at most `depth` containers deep.
    static func json(depth: Int, using generator: inout SeededGenerator) -> JSON {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            let number = Double(bitPattern: generator.next())
            return .number(number.isFinite ? number : 0)
        case 3: return .number(Double(Int.random(in: -1_000...1_000, using: &generator)))
        case 4: return .string(string(using: &generator))
        case 5:
            return .array(
                (0..<Int.random(in: 0...3, using: &generator)).map { _ in json(depth: depth - 1, using: &generator) })
        default: return .object(object(depth: depth - 1, using: &generator))
        }
    }

    /// Random metadata: an object of up to 4 members.
    static func object(depth: Int, using generator: inout SeededGenerator) -> [String: JSON] {
        var members: [String: JSON] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            members[string(using: &generator)] = json(depth: depth, using: &generator)
        }
        return members
    }

    /// A random channel, with random metadata.
    static func channel(using generator: inout SeededGenerator) -> Channel {
        var value = channel
        value.channelId = string(using: &generator)
        value.metadata = object(depth: 3, using: &generator)
        value.tags = (0..<Int.random(in: 0...3, using: &generator)).map { _ in string(using: &generator) }
        value.displayName = Bool.random(using: &generator) ? nil : string(using: &generator)
        value.lastSequence = Int(truncatingIfNeeded: generator.next())
        value.version = Int.random(in: 0...Int.max, using: &generator)
        return value
    }

    /// A random message, with random metadata.
    static func message(using generator: inout SeededGenerator) -> Message {
        var value = message
        value.text = string(using: &generator)
        value.metadata = object(depth: 3, using: &generator)
        value.editedAt =
            Bool.random(using: &generator) ? nil : Date(timeIntervalSince1970: Double(generator.next() % 1_000_000))
        return value
    }
}
