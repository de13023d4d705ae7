import ChatAPI
import LiveCore

/// Where a controller's data comes from (Stream's `DataController.State`).
///
/// A controller is `.initialized` until its first `synchronize` (or `loadNext…`), then
/// `.localDataFetched` once it shows what the client's cache holds (possibly nothing), then
/// `.remoteDataFetched` when the server answered, or `.remoteDataFetchFailed` with the error.
/// A failed controller retries by itself after the next (re)connect and turns
/// `.remoteDataFetched` when that works.
public enum DataControllerState: Sendable, Hashable {
    /// Nothing loaded yet.
    case initialized
    /// The cached data is shown.
    case localDataFetched
    /// Reading the cache failed (kept for Stream compatibility; the in-memory and SQLite caches
    /// report damage at `connect()` instead, so controllers do not enter this state).
    case localDataFetchFailed(ChatError)
    /// The server's data is shown.
    case remoteDataFetched
    /// The server could not be asked, or refused.
    case remoteDataFetchFailed(ChatError)

    /// The states a controller in this state passes through when its handle shows these
    /// statuses (in order; empty when nothing changes).
    func transitions(dataStatus: DataStatus, loadingStatus: LoadingStatus, error: (any Error)?) -> [Self] {
        var states: [Self] = []
        var current = self
        if current == .initialized {
            current = .localDataFetched
            states.append(current)
        }
        guard loadingStatus != .loading else { return states }
        if loadingStatus == .error || dataStatus == .error {
            guard current != .remoteDataFetched else { return states }
            let failed = Self.remoteDataFetchFailed(ChatError(error))
            if failed != current { states.append(failed) }
        } else if dataStatus == .fresh, current != .remoteDataFetched {
            states.append(.remoteDataFetched)
        }
        return states
    }
}

extension ChatError {
    /// `error` as a `ChatError` (`.unavailable` describing it when it is another error).
    init(_ error: (any Error)?) {
        switch error {
        case let error as ChatError: self = error
        case let error?: self = .unavailable("\(error)")
        case nil: self = .unavailable("the request failed")
        }
    }
}
