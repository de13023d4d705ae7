import ChatAPI
import Foundation

/// What the server keeps about one member of one channel.
struct MemberRecord: Sendable, Hashable {
    let userId: String
    /// Sorted, without duplicates.
    var roles: [String] = []
    var joinedAt: Date
    /// The sequence number of the last message the member has read.
    var readSequence: Int
    /// The sequence number of the newest message that mentions the member (0: none).
    var mentionSequence: Int = 0

    var isModerator: Bool { roles.contains(ChannelRole.moderator) }
}
