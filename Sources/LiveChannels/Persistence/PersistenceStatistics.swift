/// What the cache file's writer has done so far (for benchmarks).
@_spi(Persistence) public struct PersistenceStatistics: Sendable {
    /// Time spent encoding and writing batches.
    public var writeTime: Duration = .zero
    /// Transactions written.
    public var batches = 0
    /// Values written (after coalescing).
    public var values = 0
}
