import Dispatch

/// Where an observer's callbacks run. Per observer, callbacks never overlap and arrive in commit
/// order, whatever the context.
public enum DeliveryContext: Sendable {
    /// On the main actor (main queue), asynchronously after the commit. The default for
    /// UI-facing API.
    case main
    /// On the given dispatch queue, asynchronously after the commit.
    case queue(DispatchQueue)
    /// Synchronously on the committing thread, right after the commit, before the commit call
    /// returns (unless another thread is already delivering to this observer, in which case that
    /// thread delivers it next, coalesced). Useful in tests, benchmarks and derived values.
    case synchronous
}
