/// Whether a live value is waiting for data (Amity's `loadingStatus`).
public enum LoadingStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// No request is under way.
    case notLoading
    /// A request (the first load or a page) is under way.
    case loading
    /// The last request completed.
    case loaded
    /// The last request failed; see the live value's `error`.
    case error
}
