import Foundation

/// Why the PostgreSQL store cannot be used.
public enum PostgresStoreError: Error, CustomStringConvertible {
    /// PostgreSQL did not answer in time (`chat-server` exits 1).
    case unreachable(String)
    /// PostgreSQL answered and refused: a wrong password, a database that does not exist
    /// (`chat-server` exits 1).
    case refused(String)
    /// The `chat` schema is not ours, or newer (`chat-server` exits 2).
    case notOurs(String)
    /// A write that ended after a newer one had committed, rolled back (its rows were older).
    case superseded(Int)
    /// A row read back is not in the shape written (the server refuses to start on it).
    case malformedRow(String)

    public var description: String {
        switch self {
        case .unreachable(let reason), .refused(let reason), .notOurs(let reason): reason
        case .superseded(let number): "write \(number) was rolled back: a newer write had committed"
        case .malformedRow(let what): "\(what) cannot be read: the row is not in the shape written"
        }
    }
}
