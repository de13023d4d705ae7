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
    /// Draw a new ``ChatServer/epoch`` at this start and keep it in the store (ignored in
    /// memory, where every start draws one): what an operator asks for after restoring a
    /// backup, which brings back the epoch of a history clients have seen further than. Every
    /// client then drops its cache and reloads. Default `false`.
    public var startsNewEpoch = false
    /// Up to how many members a channel tells every member when someone's read marker moves
    /// (so other members' `readSequence` is live in member lists); in larger channels only
    /// the reader's own devices are told (a marker that follows every new message would cost
    /// members × readers events per message), and others see the marker when they next load
    /// the member. Default 100.
    public var maxMembersForReadEvents: Int = 100

    /// How many channels a channel query that must test many of them (a sort by a metadata
    /// path, a filter no index answers) tests per hold of the server's lock; between holds
    /// other requests run, so such a query never holds up a small request of another user by
    /// more than one step (the query's page is still exact as of its response). A query with
    /// fewer candidates, or one an index answers within a few steps, runs in one hold.
    /// Default 512.
    public var channelsPerScanStep: Int = 512

    // MARK: Limits (`nil`: none; ``standard`` sets them all)

    /// Events a connection may have pending — queued for the device and not yet taken from its
    /// `events` — before the server disconnects it as too slow (`.disconnected(.connectionLost(
    /// .limitExceeded))`; over the wire, close 4009). The events stay in the device's replay
    /// log, so it comes back through catch-up or a resync. Memory per connection stays bounded
    /// by this however slowly a device reads.
    public var maxPendingEvents: Int?
    /// Requests per second per device: a token bucket that bursts to twice the rate. Beyond,
    /// a request is refused with `rateLimited(retryAfter:)` (the seconds until one passes) and
    /// changes nothing; the 100th refusal in a row disconnects the device
    /// (`.connectionLost(.rateLimited)`; over the wire, close 4008). Console calls are never
    /// limited.
    public var requestsPerSecond: Double?
    /// Messages per second per user (`sendMessage` and `editMessage`, over all the user's
    /// devices): a token bucket that bursts to twice the rate; beyond, `rateLimited`.
    public var messagesPerSecond: Double?
    /// Devices of one user connected at once; one more is refused at connect with
    /// `limitExceeded` (over the wire, HTTP 429 before the upgrade).
    public var maxDevicesPerUser: Int?
    /// A message's text and metadata together, in UTF-8 bytes (text bytes plus the metadata's
    /// encoded size); beyond, `limitExceeded`. Each field keeps its own limit too
    /// (``InputLimits``).
    public var maxMessageBytes: Int?
    /// Channels one user may create per hour (bursts of as many); beyond, `rateLimited`.
    /// Returning an existing conversation does not count.
    public var channelsPerUserPerHour: Int?

    /// Every limit on, with the defaults `chat-server` runs with: 10,000 pending events per
    /// connection, 100 requests per second per device, 20 messages per second per user,
    /// 20 devices per user, 64 KiB per message, 100 new channels per user per hour, and a
    /// replay log of 10,000 events per device.
    public static var standard: ServerConfiguration {
        var configuration = ServerConfiguration(eventLogCapacity: 10_000)
        configuration.maxPendingEvents = 10_000
        configuration.requestsPerSecond = 100
        configuration.messagesPerSecond = 20
        configuration.maxDevicesPerUser = 20
        configuration.maxMessageBytes = 65_536
        configuration.channelsPerUserPerHour = 100
        return configuration
    }

    /// - Parameters:
    ///   - typingExpiry: seconds a typing indicator lasts without renewal (default 5); it then
    ///     ends by itself (members are told `typingStopped`), with or without other traffic.
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
