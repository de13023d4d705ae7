/// Where a live value's data comes from (Amity's `dataStatus`).
public enum DataStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// There is no data (yet): nothing cached and no answer from the server.
    case notExist
    /// Served from the local cache; the server has not confirmed it in this session.
    case local
    /// Confirmed by the server and kept current by events.
    case fresh
    /// The last attempt to get the data failed; see the live value's `error`.
    case error
}
