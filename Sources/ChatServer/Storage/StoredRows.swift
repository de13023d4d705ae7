import ChatAPI
import Foundation
import RowCoding

/// A member of a channel in the storage's row encoding.
extension MemberRecord: RowCodable {
    static var rowTag: UInt8 { 0x6D }  // "m"

    func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(userId)
        writer.write(roles)
        writer.write(joinedAt)
        writer.write(readSequence)
        writer.write(mentionSequence)
    }

    init(fields reader: inout RowReader) throws(RowCodingError) {
        try self.init(
            userId: reader.string(), roles: reader.strings(), joinedAt: reader.date(), readSequence: reader.int(),
            mentionSequence: reader.int())
    }
}

/// A channel's moderation state in the storage's row encoding: each map as a count and its
/// entries in key order (so equal values encode to equal bytes).
extension ChannelExtras: RowCodable {
    static var rowTag: UInt8 { 0x78 }  // "x"

    func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(count: bans.count)
        for (userId, ban) in bans.sorted(by: { $0.key < $1.key }) {
            writer.write(userId)
            writer.write(ban.bannedAt)
        }
        writer.write(count: mutes.count)
        for (userId, until) in mutes.sorted(by: { $0.key < $1.key }) {
            writer.write(userId)
            writer.write(until)
        }
        writer.write(mutedUntil)
        writer.write(rateLimit != nil)
        if let rateLimit {
            writer.write(rateLimit.limit)
            writer.write(rateLimit.window)
            writer.write(rateLimit.until)
        }
        writer.write(count: messageFlags.count)
        for (sequence, users) in messageFlags.sorted(by: { $0.key < $1.key }) {
            writer.write(sequence)
            writer.write(users.sorted())
        }
        writer.write(count: userFlags.count)
        for (userId, users) in userFlags.sorted(by: { $0.key < $1.key }) {
            writer.write(userId)
            writer.write(users.sorted())
        }
        writer.write(moderationSettings.blockedWords)
        writer.write(moderationSettings.blockedWordAction.rawValue)
        writer.write(moderationSettings.allowedURLDomains != nil)
        if let domains = moderationSettings.allowedURLDomains { writer.write(domains) }
        writer.write(count: recentSends.count)
        for (userId, times) in recentSends.sorted(by: { $0.key < $1.key }) {
            writer.write(userId)
            writer.write(count: times.count)
            for time in times { writer.write(time) }
        }
    }

    init(fields reader: inout RowReader) throws(RowCodingError) {
        var bans: [String: BanRecord] = [:]
        for _ in 0..<(try reader.count()) {
            let userId = try reader.string()
            bans[userId] = BanRecord(userId: userId, bannedAt: try reader.date())
        }
        var mutes: [String: Date] = [:]
        for _ in 0..<(try reader.count()) { mutes[try reader.string()] = try reader.date() }
        let mutedUntil = try reader.optionalDate()
        var rateLimit: RateLimitPolicy?
        if try reader.bool() {
            let policy = try RateLimitPolicy(limit: reader.int(), window: reader.double(), until: reader.date())
            guard policy.limit >= 1, policy.window.isFinite, policy.window > 0 else {
                throw .invalid("a rate limit of \(policy.limit) messages per \(policy.window) s")
            }
            rateLimit = policy
        }
        var messageFlags: [Int: Set<String>] = [:]
        for _ in 0..<(try reader.count()) { messageFlags[try reader.int()] = Set(try reader.strings()) }
        var userFlags: [String: Set<String>] = [:]
        for _ in 0..<(try reader.count()) { userFlags[try reader.string()] = Set(try reader.strings()) }
        let blockedWords = try reader.strings()
        let actionName = try reader.string()
        guard let action = ModerationSettings.BlockedWordAction(rawValue: actionName) else {
            throw .invalid("blocked word action '\(actionName)'")
        }
        let domains: [String]? = try reader.bool() ? try reader.strings() : nil
        var recentSends: [String: [Date]] = [:]
        for _ in 0..<(try reader.count()) {
            let userId = try reader.string()
            var times: [Date] = []
            for _ in 0..<(try reader.count()) { times.append(try reader.date()) }
            recentSends[userId] = times
        }
        self.init(
            bans: bans, mutes: mutes, mutedUntil: mutedUntil, rateLimit: rateLimit, messageFlags: messageFlags,
            userFlags: userFlags,
            moderationSettings: ModerationSettings(
                blockedWords: blockedWords, blockedWordAction: action, allowedURLDomains: domains),
            recentSends: recentSends)
    }
}
