import Foundation

/// Tunable server behaviour. The defaults suit apps and tests alike.
public struct ServerConfiguration: Sendable, Hashable {
    /// How long a typing indicator lasts without renewal, in seconds.
    public var typingExpiry: TimeInterval
    /// How many events each device's replay log keeps for resuming. A client that resumes after
    /// an older sequence number is told to resync.
    public var eventLogCapacity: Int
    /// How long, in seconds of the server's clock, each device's replay log keeps an event. Older
    /// events are dropped (when the device's log next grows, when the device reconnects, and by
    /// a sweep of all logs at most every quarter of this period), so memory stays bounded for
    /// devices that never come back; a device that resumes after a dropped event is told to
    /// resync (`ConnectResult.Status.resyncRequired`).
    public var eventLogRetention: TimeInterval
    /// How many messages each channel keeps: sending one more drops the channel's oldest, so
    /// the server's memory is bounded by its channels, not by its history. `Int.max` keeps
    /// every message.
    ///
    /// What a dropped message leaves behind, and what it does not:
    /// - Sequence numbers go on (they never restart or shift), and the channel's
    ///   `lastSequence` and `messageCount` (every message ever sent) are unchanged.
    /// - Unread counts and mention flags are unaffected: they count sequence numbers after the
    ///   read marker, so a member away for long still sees how many messages they missed, even
    ///   those that can no longer be fetched.
    /// - Paging stops at the oldest kept message: a `queryMessages` page reaching past it is
    ///   shorter and has `hasPrevious == false`; a page `.after(sequence:)` an older message
    ///   starts at the oldest kept one.
    /// - The dropped message is gone: editing, deleting or flagging it answers `notFound`, and
    ///   its flags leave the channel's flag reports. No event tells clients (they keep what they
    ///   have).
    public var messagesPerChannel: Int
    /// What a committed change survives with ``ServerStorage/sqlite(_:)`` (ignored in memory):
    /// ``StorageDurability/processCrash`` (the default) or ``StorageDurability/powerLoss``.
    public var durability: StorageDurability = .processCrash

    /// - Parameters:
    ///   - typingExpiry: seconds a typing indicator lasts without renewal (default 5).
    ///   - eventLogCapacity: events kept per device for resuming (default 1,024; at least 1).
    ///   - eventLogRetention: seconds an event is kept for resuming (default 86,400, a day;
    ///     at least 1).
    ///   - messagesPerChannel: messages each channel keeps, the newest (default 10,000; at
    ///     least 1; `Int.max`: all).
    public init(
        typingExpiry: TimeInterval = 5, eventLogCapacity: Int = 1_024, eventLogRetention: TimeInterval = 86_400,
        messagesPerChannel: Int = 10_000
    ) {
        self.typingExpiry = typingExpiry
        self.eventLogCapacity = max(1, eventLogCapacity)
        self.eventLogRetention = eventLogRetention.isNaN ? 86_400 : max(1, eventLogRetention)
        self.messagesPerChannel = max(1, messagesPerChannel)
    }
}
