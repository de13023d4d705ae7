/// The outcome of `ChatTransport.connect(resumingAfter:)`.
public struct ConnectResult: Sendable, Hashable, Codable {
    /// How the new connection relates to what the client had.
    public enum Status: String, Sendable, Hashable, Codable {
        /// No resume was asked for: a fresh start.
        case new
        /// Every event after the requested sequence number is (re)delivered on `events`, in
        /// order, before newer ones; the client's cache stays valid.
        case resumed
        /// Missed events cannot be replayed (too old, or the server restarted): the client must
        /// refetch what it shows. New events follow `lastSequence`.
        case resyncRequired
    }

    /// How the connection relates to the previous one.
    public var status: Status
    /// The connected user, as registered on the server.
    public var currentUser: User
    /// The sequence number of the newest event of this device's stream when the connection was
    /// made (0 if none). Events beyond it are new; after a resume, the replayed ones are those
    /// from the requested sequence + 1 through it.
    public var lastSequence: Int

    /// A result, as a transport reports it.
    public init(status: Status, currentUser: User, lastSequence: Int) {
        self.status = status
        self.currentUser = currentUser
        self.lastSequence = lastSequence
    }
}
