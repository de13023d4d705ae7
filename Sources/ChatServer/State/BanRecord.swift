import Foundation

/// A user banned from a channel: not a member, and cannot join or be added until unbanned.
struct BanRecord: Sendable, Hashable {
    let userId: String
    let bannedAt: Date
}
