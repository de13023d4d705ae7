@testable import ChatAPI
import Foundation
import TestSupport

/// Random values of everything the hot frames carry (a client's hot requests among them), for comparing ``WireJSONWriter`` with
/// `JSONEncoder`: text that needs escaping (quotes, backslashes, every control character,
/// U+2028, emoji, other scripts, empty strings), metadata trees of every JSON kind (negative,
/// fractional, huge and tiny numbers), every optional both `nil` and set, fractional dates,
/// pages with and without cursors, extreme integers.
///
/// Every date round-trips exactly through seconds since 1970 (`Date` keeps seconds since
/// 2001, so not every interval does), so decoded frames equal the generated ones.
struct RandomWireValues {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private static let pieces = [
        "", "a", "Z", " ", "x y", "0123", "\"", "\\", "/", "//", "\n", "\r\n", "\t", "\u{0}", "\u{8}", "\u{C}",
        "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}", "é", "ü", "Élan", "中文", "💬", "👩‍👩‍👧", "\u{FEFF}", "\\u0041",
        "{\"k\":[1]}", "null", "true",
    ]

    mutating func bool() -> Bool { Bool.random(using: &random) }

    /// `true` one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }

    /// A string of 0 to 8 pieces, each a tricky one, a control character or a random scalar.
    mutating func string() -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &random)))
            case 1:
                // Any scalar of the basic plane but the surrogates, or of the planes above.
                let value = UInt32.random(in: 0x20...0x10_FFFF, using: &random)
                text.unicodeScalars.append(Unicode.Scalar(value) ?? "?")
            default: text += Self.pieces.randomElement(using: &random)!
            }
        }
        return text
    }

    mutating func optionalString() -> String? { bool() ? string() : nil }

    mutating func strings() -> [String] { (0..<Int.random(in: 0...3, using: &random)).map { _ in string() } }

    /// Mostly small integers; now and then an extreme one.
    mutating func int() -> Int {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: [Int.min, Int.max, 0, -1, 1 << 53, -(1 << 53) - 1].randomElement(using: &random)!
        case 1: Int.random(in: Int.min...Int.max, using: &random)
        default: Int.random(in: -5...100_000, using: &random)
        }
    }

    /// A request id or a count: never negative.
    mutating func count() -> Int { Int.random(in: 0...WireProtocol.maximumRequestId, using: &random) }

    /// A finite number of every kind JSON holds: integral, fractional, huge, tiny, negative, −0.
    mutating func number() -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Double(Int.random(in: -1_000...1_000, using: &random))
        case 1: return Double(Int.random(in: -(1 << 62)...(1 << 62), using: &random))
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        case 3: return Double.random(in: -1...1, using: &random) * 1e-300
        case 4: return Double.random(in: -1...1, using: &random) * 1e300
        case 5:
            return [0.1, 0.5, -0.0, 1e16, 1e21, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0x1p53 + 2]
                .randomElement(using: &random)!
        default:
            // Any finite bit pattern.
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite { return value }
            }
        }
    }

    /// A date whose seconds since 1970 round-trip: whole, fractional, before 1970, far ahead.
    mutating func date() -> Date {
        while true {
            let seconds: Double =
                switch Int.random(in: 0..<5, using: &random) {
                case 0: Double(Int.random(in: 0...2_000_000_000, using: &random))
                case 1: Double(Int.random(in: 1_600_000_000...1_900_000_000, using: &random)) + 0.25
                case 2: Double.random(in: -1e9...4e9, using: &random)
                case 3: Date.distantFuture.timeIntervalSince1970
                default: Double.random(in: 0...1, using: &random)
                }
            let date = Date(timeIntervalSince1970: seconds)
            if Date(timeIntervalSince1970: date.timeIntervalSince1970) == date { return date }
        }
    }

    mutating func optionalDate() -> Date? { bool() ? date() : nil }

    /// A JSON value at most `depth` arrays and objects deep.
    mutating func json(depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 4), using: &random) {
        case 0: .null
        case 1: .bool(bool())
        case 2: .number(number())
        case 3: .string(string())
        case 4: .array((0..<Int.random(in: 0...3, using: &random)).map { _ in json(depth: depth - 1) })
        default: .object(members(depth: depth - 1))
        }
    }

    /// An object's members, their values at most `depth` deep.
    mutating func members(depth: Int) -> [String: JSON] {
        var members: [String: JSON] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &random) { members[string()] = json(depth: depth) }
        return members
    }

    /// Metadata: empty a third of the time, else a tree up to 3 deep (now and then 4).
    mutating func metadata() -> [String: JSON] { oneIn(3) ? [:] : members(depth: oneIn(4) ? 3 : 2) }

    mutating func channel() -> Channel {
        var channel = Channel(
            channelId: string(), type: ChannelType.allCases.randomElement(using: &random)!, isDistinct: bool(),
            metadata: metadata(), tags: strings(), isMuted: bool(), isRateLimited: bool(), rateLimit: int(),
            rateLimitWindow: bool() ? 0 : number(), displayName: optionalString(), memberCount: int(),
            messageCount: int(), lastActivity: date(), createdAt: date(), updatedAt: date(),
            avatarFileId: optionalString(), creatorId: optionalString(), isDeleted: bool(),
            lastMessageAt: optionalDate(), lastSequence: int(),
            currentUserMembership: Membership.allCases.randomElement(using: &random)!, readSequence: int(),
            hasMention: bool())
        channel.version = int()
        return channel
    }

    mutating func user() -> User {
        var user = User(
            userId: string(), displayName: optionalString(), metadata: metadata(), isAdmin: bool(), createdAt: date(),
            updatedAt: date(), isOnline: bool(), lastActiveAt: optionalDate())
        user.version = int()
        return user
    }

    mutating func member() -> ChannelMember {
        var member = ChannelMember(
            channelId: string(), userId: string(), roles: strings(),
            membership: Membership.allCases.randomElement(using: &random)!, mutedUntil: optionalDate(),
            isMuted: bool(), joinedAt: date(), readSequence: int(), user: bool() ? user() : nil)
        member.version = int()
        return member
    }

    mutating func message() -> Message {
        var message = Message(
            messageId: string(), channelId: string(), sequence: int(), userId: string(), text: string(),
            mentionedUserIds: strings(), metadata: metadata(), createdAt: date(), editedAt: optionalDate(),
            isDeleted: bool())
        message.version = int()
        return message
    }

    mutating func sortValue() -> SortValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: .missing
        case 1: .number(number())
        case 2: .string(folded: string(), original: string())
        case 3: .object(string())
        case 4: .array(string())
        default: .bool(bool())
        }
    }

    /// A cursor with 0 to 3 sort values of every kind.
    mutating func cursor() -> PageCursor {
        let values = (0..<Int.random(in: 0...3, using: &random)).map { _ in sortValue() }
        return PageCursor(
            ordering: string(), key: SortKey(values: values, ascending: values.map { _ in bool() }, id: string()))
    }

    /// A page of 0 to 3 items, with a cursor or without.
    mutating func page<Element>(_ item: (inout Self) -> Element) -> Page<Element> {
        Page(
            items: (0..<Int.random(in: 0...3, using: &random)).map { _ in item(&self) },
            next: bool() ? cursor() : nil, hasNext: bool())
    }

    mutating func flagReport() -> FlagReport {
        FlagReport(subject: bool() ? .message(messageId: string()) : .user(userId: string()), flaggedBy: strings())
    }

    mutating func moderationSettings() -> ModerationSettings {
        ModerationSettings(
            blockedWords: strings(), blockedWordAction: bool() ? .refuse : .mask,
            allowedURLDomains: bool() ? strings() : nil)
    }

    /// An event of a case chosen at random (each about equally often).
    mutating func event() -> ChatEvent {
        switch Int.random(in: 0..<18, using: &random) {
        case 0: .channelCreated(channel())
        case 1: .channelUpdated(channel())
        case 2: .channelDeleted(channel())
        case 3: .memberAdded(member(), channel: channel())
        case 4: .memberRemoved(member(), channel: channel())
        case 5: .memberBanned(member(), channel: channel())
        case 6: .memberUnbanned(member(), channel: channel())
        case 7: .memberMuted(member())
        case 8: .memberUnmuted(member())
        case 9: .memberRoleChanged(member())
        case 10: .messageNew(message(), channel: channel())
        case 11: .messageUpdated(message())
        case 12: .messageDeleted(message())
        case 13: .readMarkerMoved(member(), channel: channel())
        case 14: .typingStarted(channelId: string(), userId: string())
        case 15: .typingStopped(channelId: string(), userId: string())
        case 16: .userUpdated(user())
        default: .presenceChanged(user())
        }
    }

    /// A response of a case chosen at random (each about equally often).
    mutating func response() -> ChatResponse {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: .empty
        case 1: .channel(channel())
        case 2: .channels(page { $0.channel() })
        case 3: .members((0..<Int.random(in: 0...3, using: &random)).map { _ in member() })
        case 4: .memberPage(page { $0.member() })
        case 5: .message(message())
        case 6:
            .messages(
                MessagePage(
                    messages: (0..<Int.random(in: 0...3, using: &random)).map { _ in message() },
                    hasPrevious: bool(), hasNext: bool()))
        case 7: .user(user())
        case 8: .users(page { $0.user() })
        case 9: .bool(bool())
        case 10: .flagReports((0..<Int.random(in: 0...3, using: &random)).map { _ in flagReport() })
        default: .moderationSettings(moderationSettings())
        }
    }

    /// An error of a case chosen at random.
    mutating func error() -> ChatError {
        switch Int.random(in: 0..<9, using: &random) {
        case 0: .notFound(string())
        case 1: .alreadyExists(string())
        case 2: .notAllowed(string())
        case 3: .forbidden(string())
        case 4: .invalidArgument(field: string(), reason: string())
        case 5: .limitExceeded(string())
        case 6: .rateLimited(retryAfter: number())
        case 7: .unavailable(string())
        default: .unauthorized(string())
        }
    }

    /// A hot frame: an event (half the time), a response, or a failure.
    /// A request a client sends: mostly the ones the writer writes (every one of them), and
    /// some it leaves to `JSONEncoder`.
    mutating func request() -> ChatRequest {
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1:
            .sendMessage(
                MessageDraft(
                    channelId: string(), text: string(), mentionedUserIds: strings(), metadata: metadata(),
                    messageId: Bool.random(using: &random) ? string() : nil))
        case 2: .startReading(channelId: string())
        case 3: .stopReading(channelId: string())
        case 4: .startTyping(channelId: string())
        case 5: .stopTyping(channelId: string())
        case 6: .editMessage(messageId: string(), draft: MessageDraft(channelId: string(), text: string()))
        default: .addMembers(channelId: string(), userIds: strings())
        }
    }

    mutating func frame() -> WireFrame {
        switch Int.random(in: 0..<12, using: &random) {
        case 0..<5: .event(EventEnvelope(sequence: int(), event: event()))
        case 5..<9:
            .response(id: count(), envelope: ResponseEnvelope(position: int(), revision: int(), response: response()))
        case 9, 10: .request(id: count(), request: request())
        default: .failure(id: count(), error: error())
        }
    }
}
