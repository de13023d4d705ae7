import Foundation

/// Tunable server behaviour. The defaults suit apps and tests alike.
public struct ServerConfiguration: Sendable, Hashable {
    /// How long a typing indicator lasts without renewal, in seconds.
    public var typingExpiry: TimeInterval
    /// How many events each device's replay log keeps for resuming. A client that resumes after
    /// an older sequence number is told to resync.
    public var eventLogCapacity: Int
    /// How many undelivered events a connected device may have buffered before the server drops
    /// the connection (the client then resumes from the replay log).
    public var eventBufferLimit: Int

    public init(typingExpiry: TimeInterval = 5, eventLogCapacity: Int = 1_024, eventBufferLimit: Int = 10_000) {
        self.typingExpiry = typingExpiry
        self.eventLogCapacity = eventLogCapacity
        self.eventBufferLimit = eventBufferLimit
    }
}
