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
        /// The newest messages before `sequence` (exclusive; it may exceed the last sequence).
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

    /// A query; by default the 30 newest messages.
    public init(channelId: String, position: Position = .latest, limit: Int = 30) {
        self.channelId = channelId
        self.position = position
        self.limit = limit
    }

    /// The highest sequence number a position may name: 2^53, the largest integer every JSON
    /// reader keeps exactly.
    public static let maximumSequence = 1 << 53

    /// Throws `ChatError.invalidArgument` for a limit out of range (`"limit"`) or a sequence
    /// number outside 0…``maximumSequence`` (`"sequence"`).
    public func validate() throws {
        try PageSize.validate(limit, field: "limit")
        switch position {
        case .latest: break
        case .before(let sequence), .after(let sequence):
            guard (0...Self.maximumSequence).contains(sequence) else {
                throw ChatError.invalidArgument(
                    field: "sequence", reason: "must be between 0 and \(Self.maximumSequence)")
            }
        }
    }

    /// A message's place in a channel's message list: ascending by sequence number; a message kept
    /// on the device (``MessageSyncState/isLocal``) after every stored one, in creation order.
    public static func sortKey(for message: Message) -> SortKey {
        guard message.syncState.isLocal else {
            return SortKey(values: [.number(Double(message.sequence))], ascending: [true], id: message.messageId)
        }
        // A message kept on the device (sequence 0) sorts after every stored one, by its
        // creation time: sequences stay below 2^52 (exact in a Double).
        return SortKey(
            values: [.number(localLead), .number(message.createdAt.timeIntervalSince1970)], ascending: [true, true],
            id: message.messageId)
    }

    /// The first sort value of a message kept on the device: above every sequence.
    private static let localLead = Double(1 << 52)

    /// The sequence numbers of the page in a channel whose last message is `lastSequence` and
    /// whose oldest message still kept is `oldestSequence` (1 unless the server dropped older
    /// ones); `nil` when the page is empty.
    ///
    /// The page never reaches below `oldestSequence`: a page before it is shorter (or empty),
    /// and a page `.after` a sequence older than it starts at it.
    ///
    /// - Complexity: O(1).
    /// Arithmetic never overflows: positions and limits beyond what ``validate()`` accepts are
    /// clamped first.
    public func sequenceRange(lastSequence: Int, oldestSequence: Int = 1) -> ClosedRange<Int>? {
        let oldest = max(1, oldestSequence)
        let limit = min(max(0, self.limit), Self.maximumSequence)
        let upper =
            switch position {
            case .latest: lastSequence
            case .before(let sequence): min(Self.clamped(sequence) - 1, lastSequence)
            case .after(let sequence): min(max(Self.clamped(sequence), oldest - 1) + limit, lastSequence)
            }
        let lower =
            if case .after(let sequence) = position { Self.clamped(sequence) + 1 } else { upper - limit + 1 }
        let clampedLower = max(oldest, lower)
        return clampedLower <= upper ? clampedLower...upper : nil
    }

    private static func clamped(_ sequence: Int) -> Int { min(max(-1, sequence), maximumSequence) }
}

extension MessagePageQuery {
    /// Decodes a query; `position` (latest) and `limit` (30) may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelId: try container.decode(String.self, forKey: .channelId),
            position: try container.decodeIfPresent(Position.self, forKey: .position) ?? .latest,
            limit: try container.decodeIfPresent(Int.self, forKey: .limit) ?? 30)
    }
}
