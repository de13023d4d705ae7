/// The updates of a live collection as an `AsyncSequence` of ``CollectionUpdate``s: first the
/// current snapshot (with a `nil` change), then each change with the snapshot it leads to.
/// Buffering is bounded: an iteration that falls behind receives one composed change from the
/// last snapshot it saw to the newest. Breaking out of the loop ends the observation.
///
/// The sequence **ends** (it never throws) when the iterating task is cancelled, and when the
/// collection **fails**: the update whose `dataStatus` is `.error` (the first page failed and
/// there is nothing to show; the update carries the `error`) and whose `loadingStatus` is not
/// `.loading` (a retry, e.g. `previousPage()` or a reconnect, keeps the sequence going) is the
/// last one. A list that holds
/// elements keeps going when a later page fails (its `dataStatus` stays `.local` or `.fresh`
/// and the update's `loadingStatus` is `.error`).
public struct LiveUpdates<Element: Identifiable & Equatable & Sendable>: AsyncSequence, Sendable {
    private let source: LiveCollectionSource<Element>

    init(source: LiveCollectionSource<Element>) {
        self.source = source
    }

    /// Starts an iteration: registers on the collection until the iterator is destroyed or its task is
    /// cancelled, and keeps the collection alive meanwhile (with the live query behind it), so a loop
    /// over a collection nothing else holds goes on receiving.
    public func makeAsyncIterator() -> Iterator {
        Iterator(deliveries: DeliveriesUntilFailure(center: source.center, source: source))
    }

    /// The iterator of ``LiveUpdates``: one registration on the collection.
    public struct Iterator: AsyncIteratorProtocol {
        private var deliveries: DeliveriesUntilFailure

        init(deliveries: DeliveriesUntilFailure) {
            self.deliveries = deliveries
        }

        /// The next update; `nil` when the task was cancelled or after the update that reported
        /// the collection failed (`dataStatus == .error`, not loading).
        public mutating func next() async -> CollectionUpdate<Element>? {
            guard let delivery = await deliveries.next() else { return nil }
            return CollectionUpdate(delivery)
        }
    }
}

/// One delivery of a live collection: a snapshot and the change that led to it.
public struct CollectionUpdate<Element: Identifiable & Equatable & Sendable>: Sendable {
    /// The elements after the change (built from the snapshot when first read).
    public var snapshots: [Element] { snapshot.array }
    /// The number of elements after the change. O(1).
    public var count: Int { snapshot.count }
    private let snapshot: ListSnapshot<Element>
    /// The change from the previous update's snapshots; `nil` for the first update.
    public let change: CollectionChange?
    /// Where the data comes from.
    public let dataStatus: DataStatus
    /// Whether a page load is under way.
    public let loadingStatus: LoadingStatus
    /// The last error reported, if any.
    public let error: (any Error)?
    /// Whether more elements can be loaded after the last one.
    public let hasNext: Bool
    /// Whether more elements can be loaded before the first one.
    public let hasPrevious: Bool

    init(_ delivery: Delivery) {
        snapshot = ListSnapshot<Element>.unbox(delivery.state.snapshot)
        change = delivery.collectionChange(Element.self)
        dataStatus = delivery.state.dataStatus
        loadingStatus = delivery.state.loadingStatus
        error = delivery.state.error
        hasNext = delivery.state.hasNext
        hasPrevious = delivery.state.hasPrevious
    }
}
