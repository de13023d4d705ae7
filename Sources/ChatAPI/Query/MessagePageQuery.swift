/// A page of one channel's messages, addressed by sequence number.
///
/// Messages are numbered 1, 2, 3 … per channel without gaps (deleted messages keep their
/// number), so a page is a contiguous range of sequence numbers; `sequenceRange(lastSequence:)`
/// computes it.
public struct MessagePageQuery: Sendable, Hashable, Codable {
    /// Where a page sits.
    public enum Position: Sendable, Hashable, Codable {
        /// The newest messages.
        case latest
        /// The messages just before `sequence` (exclusive).
        case before(sequence: Int)
        /// The messages just after `sequence` (exclusive).
        case after(sequence: Int)
    }

    /// The channel.
    public var channelId: String
    /// Which messages.
    public var position: Position
    /// The most messages per page, 1…`ChannelListQuery.maximumPageSize`.
    public var limit: Int

    public init(channelId: String, position: Position = .latest, limit: Int = 30) {
        self.channelId = channelId
        self.position = position
        self.limit = limit
    }

    /// Throws `ChatError.invalidArgument` for a limit out of range (`"limit"`) or a negative
    /// sequence number (`"sequence"`).
    public func validate() throws {
        try PageSize.validate(limit, field: "limit")
        switch position {
        case .latest: break
        case .before(let sequence), .after(let sequence):
            guard sequence >= 0 else {
                throw ChatError.invalidArgument(field: "sequence", reason: "must not be negative")
            }
        }
    }

    /// The sequence numbers of the page in a channel whose last message is `lastSequence`;
    /// `nil` when the page is empty.
    ///
    /// - Complexity: O(1).
    public func sequenceRange(lastSequence: Int) -> ClosedRange<Int>? {
        let (lower, upper) =
            switch position {
            case .latest: (lastSequence - limit + 1, lastSequence)
            case .before(let sequence): (sequence - limit, min(sequence - 1, lastSequence))
            case .after(let sequence): (sequence + 1, min(sequence + limit, lastSequence))
            }
        let clampedLower = max(1, lower)
        return clampedLower <= upper ? clampedLower...upper : nil
    }
}

/// A page of messages in ascending sequence order.
public struct MessagePage: Sendable, Hashable, Codable {
    /// The messages, oldest first.
    public var messages: [Message]
    /// Whether older messages exist before the first one.
    public var hasPrevious: Bool
    /// Whether newer messages exist after the last one.
    public var hasNext: Bool

    public init(messages: [Message], hasPrevious: Bool, hasNext: Bool) {
        self.messages = messages
        self.hasPrevious = hasPrevious
        self.hasNext = hasNext
    }
}
