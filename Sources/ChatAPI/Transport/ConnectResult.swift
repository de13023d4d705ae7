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
    /// The identity of the server's history: it changes whenever the server's state starts over
    /// (an in-memory server restarted, a new store file or database, a database restored from
    /// a backup) and stays the same while the state continues (restarts on the same store, the
    /// nodes of one cluster). A client whose cache was filled under another epoch discards it
    /// and reloads everything it shows. Empty when unknown (a transport that does not tell, an
    /// older server): then the client compares nothing.
    public var epoch: String

    /// A result, as a transport reports it.
    public init(status: Status, currentUser: User, lastSequence: Int, epoch: String = "") {
        self.status = status
        self.currentUser = currentUser
        self.lastSequence = lastSequence
        self.epoch = epoch
    }

    private enum CodingKeys: String, CodingKey {
        case status, currentUser, lastSequence, epoch
    }

    /// Decodes a result; `epoch` may be missing (a server older than epochs): it is then empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            status: try container.decode(Status.self, forKey: .status),
            currentUser: try container.decode(User.self, forKey: .currentUser),
            lastSequence: try container.decode(Int.self, forKey: .lastSequence),
            epoch: try container.decodeIfPresent(String.self, forKey: .epoch) ?? "")
    }
}
