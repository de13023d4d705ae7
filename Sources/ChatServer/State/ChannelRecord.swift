import ChatAPI
import Foundation

/// Everything the server keeps about one channel.
///
/// A value with its fields behind one reference (copy on write): the server copies a record
/// to read it (a request's checks, each emission's rendering), and a copy costs one retain, not
/// one per field. A write copies the fields only while another copy is alive.
struct ChannelRecord: Sendable {
    /// The fields, stored.
    struct Fields: Sendable {
        var info: Channel
        var members: ChangeTrackedDictionary<String, MemberRecord> = [:]
        var memberOrder: OrderedIndex<SortValue>?
        var bans: [String: BanRecord] = [:]
        var messages: NumberedLog<Message>
        var typing: [String: Date] = [:]
        var readers: [String: Set<String>] = [:]
        var mutes: [String: Date] = [:]
        var timedMutes: Set<String> = []
        var mutedUntil: Date?
        var rateLimit: RateLimitPolicy?
        var messageFlags: [Int: Set<String>] = [:]
        var userFlags: [String: Set<String>] = [:]
        var moderationSettings = ModerationSettings()
        var recentSends: [String: [Date]] = [:]
        var extrasChanged = false
    }

    // @unchecked Sendable: `fields` is written only through `ChannelRecord`'s mutating
    // accessors, after `isKnownUniquelyReferenced` made this box the record's own; a shared box
    // is only read.
    private final class Box: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    init(info: Channel, messages: NumberedLog<Message>) {
        box = Box(Fields(info: info, messages: messages))
    }

    /// The fields to write: the box is copied first if another record shares it.
    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            return box
        }
    }

    /// The viewer-neutral fields, kept current. The viewer fields (`currentUserMembership`,
    /// `readSequence`, `hasMention`) and the time-dependent ones (`isMuted`, `isRateLimited`)
    /// are filled in when the channel is rendered for a viewer.
    var info: Channel {
        get { box.fields.info }
        _modify { yield &unique.fields.info }
    }
    /// Members by user id. Writes are tracked for the storage. Add and remove members with
    /// ``insertMember(_:)`` and ``removeMember(_:)`` (they keep ``memberOrder``); other fields
    /// of a member may be changed in place.
    var members: ChangeTrackedDictionary<String, MemberRecord> {
        get { box.fields.members }
        _modify { yield &unique.fields.members }
    }
    /// The members by when they joined, then by user id, once the channel has
    /// ``memberOrderThreshold`` members or more: a page of members walks it from its cursor
    /// instead of testing every member (``ServerState/queryMembers(_:after:by:now:)``).
    private(set) var memberOrder: OrderedIndex<SortValue>? {
        get { box.fields.memberOrder }
        _modify { yield &unique.fields.memberOrder }
    }
    /// From how many members a channel keeps ``memberOrder``.
    static let memberOrderThreshold = 1_024
    /// Banned users by user id (never also in `members`).
    var bans: [String: BanRecord] {
        get { box.fields.bans }
        _modify {
            yield &unique.fields.bans
            box.fields.extrasChanged = true
        }
    }
    /// The kept messages, numbered by their sequence numbers (the newest
    /// ``ServerConfiguration/messagesPerChannel``).
    var messages: NumberedLog<Message> {
        get { box.fields.messages }
        _modify { yield &unique.fields.messages }
    }
    /// Users typing, with the time their indicator expires.
    var typing: [String: Date] {
        get { box.fields.typing }
        _modify { yield &unique.fields.typing }
    }
    /// Users reading, with the devices they read on (never empty sets).
    var readers: [String: Set<String>] {
        get { box.fields.readers }
        _modify { yield &unique.fields.readers }
    }
    /// Mutes by user id, with when they end (`.distantFuture`: no end). A mute belongs to the
    /// (channel, user) pair, not to a membership: it survives leaving, rejoining, removal and
    /// bans, and ends only when it expires or a moderator unmutes.
    var mutes: [String: Date] {
        get { box.fields.mutes }
        _modify {
            yield &unique.fields.mutes
            box.fields.extrasChanged = true
        }
    }
    /// Users whose mute has an end (an index for expiry).
    var timedMutes: Set<String> {
        get { box.fields.timedMutes }
        _modify { yield &unique.fields.timedMutes }
    }
    /// When the channel mute ends; `nil` when not muted.
    var mutedUntil: Date? {
        get { box.fields.mutedUntil }
        _modify {
            yield &unique.fields.mutedUntil
            box.fields.extrasChanged = true
        }
    }
    var rateLimit: RateLimitPolicy? {
        get { box.fields.rateLimit }
        _modify {
            yield &unique.fields.rateLimit
            box.fields.extrasChanged = true
        }
    }
    /// Who flagged each message (by sequence number) and each user, for moderators.
    var messageFlags: [Int: Set<String>] {
        get { box.fields.messageFlags }
        _modify {
            yield &unique.fields.messageFlags
            box.fields.extrasChanged = true
        }
    }
    var userFlags: [String: Set<String>] {
        get { box.fields.userFlags }
        _modify {
            yield &unique.fields.userFlags
            box.fields.extrasChanged = true
        }
    }
    /// Content filters applied to every message sent or edited.
    var moderationSettings: ModerationSettings {
        get { box.fields.moderationSettings }
        _modify {
            yield &unique.fields.moderationSettings
            box.fields.extrasChanged = true
        }
    }
    /// Recent send times per user, for the rate limit (pruned to the window on each send). Like
    /// mutes they belong to the (channel, user) pair: leaving and rejoining does not reset the
    /// window; changing or ending the rate limit does.
    var recentSends: [String: [Date]] {
        get { box.fields.recentSends }
        _modify {
            yield &unique.fields.recentSends
            box.fields.extrasChanged = true
        }
    }

    /// Whether the storage's part of the moderation state (``ChannelExtras``) changed since the
    /// storage last took it.
    var extrasChanged: Bool {
        get { box.fields.extrasChanged }
        _modify { yield &unique.fields.extrasChanged }
    }

    var id: String { info.channelId }
    var type: ChannelType { info.type }

    func isMember(_ userId: String) -> Bool { members[userId] != nil }

    /// The members among `userIds`, sorted, without duplicates.
    func members(among userIds: [String]) -> [String] { Set(userIds).filter(isMember).sorted() }
    func isBanned(_ userId: String) -> Bool { bans[userId] != nil }
    func isModerator(_ userId: String) -> Bool { members[userId]?.isModerator ?? false }

    /// Whether `userId` is muted in this channel at `now` (member or not).
    func isUserMuted(_ userId: String, at now: Date) -> Bool {
        guard let until = mutes[userId] else { return false }
        return until > now
    }

    /// Whether anything in the channel expires with time (typing, a mute with an end, the
    /// channel mute, the rate limit).
    var hasDeadlines: Bool {
        !typing.isEmpty || !timedMutes.isEmpty || mutedUntil.map { $0 != .distantFuture } ?? false
            || rateLimit.map { $0.until != .distantFuture } ?? false
    }

    /// The earliest time something in the channel expires (see ``hasDeadlines``), if any.
    ///
    /// - Complexity: O(typing users + timed mutes).
    var nextDeadline: Date? {
        var deadlines = Array(typing.values)
        deadlines.append(contentsOf: timedMutes.compactMap { mutes[$0] })
        if let mutedUntil, mutedUntil != .distantFuture { deadlines.append(mutedUntil) }
        if let rateLimit, rateLimit.until != .distantFuture { deadlines.append(rateLimit.until) }
        return deadlines.min()
    }

    func isMuted(at now: Date) -> Bool {
        guard let mutedUntil else { return false }
        return mutedUntil > now
    }

    func activeRateLimit(at now: Date) -> RateLimitPolicy? {
        guard let rateLimit, rateLimit.isActive(at: now) else { return nil }
        return rateLimit
    }
}

extension ChannelRecord {
    /// Adds (or replaces) a member, keeping ``memberOrder``.
    /// - Complexity: O(log n + c + n / c) with the order kept; O(n log n) once, when the
    ///   channel reaches ``memberOrderThreshold`` members.
    mutating func insertMember(_ member: MemberRecord) {
        if let old = members[member.userId] { memberOrder?.remove(key: Self.orderKey(old), id: old.userId) }
        members[member.userId] = member
        if memberOrder != nil {
            memberOrder!.insert(key: Self.orderKey(member), id: member.userId)
        } else if members.count >= Self.memberOrderThreshold {
            rebuildMemberOrder()
        }
    }

    /// Removes a member, keeping ``memberOrder``.
    /// - Complexity: O(log n + c + n / c).
    mutating func removeMember(_ userId: String) {
        guard let old = members[userId] else { return }
        members[userId] = nil
        memberOrder?.remove(key: Self.orderKey(old), id: userId)
    }

    /// Builds ``memberOrder`` from the members (a channel restored from storage), or drops it
    /// for a small channel.
    /// - Complexity: O(n log n).
    mutating func rebuildMemberOrder() {
        guard members.count >= Self.memberOrderThreshold else {
            memberOrder = nil
            return
        }
        memberOrder = OrderedIndex(members.values.map { OrderedIndex.Entry(key: Self.orderKey($0), id: $0.userId) })
    }

    /// A member's key in ``memberOrder``: the sort value of `MemberListQuery`'s order.
    static func orderKey(_ member: MemberRecord) -> SortValue {
        .number(member.joinedAt.timeIntervalSince1970)
    }
}
