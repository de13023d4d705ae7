import Foundation

/// Tunable server behaviour. The defaults suit apps and tests alike.
public struct ServerConfiguration: Sendable, Hashable {
    /// How long a typing indicator lasts without renewal, in seconds.
    public var typingExpiry: TimeInterval
    /// How many events each device's replay log keeps for resuming. A client that resumes after
    /// an older sequence number is told to resync.
    public var eventLogCapacity: Int

    /// - Parameters:
    ///   - typingExpiry: seconds a typing indicator lasts without renewal (default 5).
    ///   - eventLogCapacity: events kept per device for resuming (default 1,024; at least 1).
    public init(typingExpiry: TimeInterval = 5, eventLogCapacity: Int = 1_024) {
        self.typingExpiry = typingExpiry
        self.eventLogCapacity = max(1, eventLogCapacity)
    }
}
