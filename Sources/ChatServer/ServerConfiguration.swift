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

    /// - Parameters:
    ///   - typingExpiry: seconds a typing indicator lasts without renewal (default 5).
    ///   - eventLogCapacity: events kept per device for resuming (default 1,024; at least 1).
    ///   - eventLogRetention: seconds an event is kept for resuming (default 86,400, a day;
    ///     at least 1).
    public init(typingExpiry: TimeInterval = 5, eventLogCapacity: Int = 1_024, eventLogRetention: TimeInterval = 86_400) {
        self.typingExpiry = typingExpiry
        self.eventLogCapacity = max(1, eventLogCapacity)
        self.eventLogRetention = eventLogRetention.isNaN ? 86_400 : max(1, eventLogRetention)
    }
}
