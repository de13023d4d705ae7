/// The snapshots of a live object as an `AsyncSequence`: first the current snapshot, then each
/// new one. Buffering is bounded: an iteration that falls behind receives only the newest
/// snapshot. Breaking out of the loop ends the observation.
///
/// The sequence **ends** (it never throws) when the iterating task is cancelled, and when the
/// live object **fails**: after delivering a state whose `dataStatus` is `.error` (the request
/// for the value failed and there is nothing to show) and that is not loading again (a retry
/// keeps the sequence going), the next call returns `nil`. Read the
/// object's `error` after the loop to learn why. An object that holds a value keeps going when a
/// later refresh fails (its `dataStatus` stays `.local` or `.fresh`).
public struct LiveValues<Value: Sendable>: AsyncSequence, Sendable {
    /// The value, or `nil` when it does not exist.
    public typealias Element = Value?
    private let source: LiveObjectSource<Value>

    init(source: LiveObjectSource<Value>) {
        self.source = source
    }

    /// Starts an iteration: registers on the object until the iterator is destroyed or its task is
    /// cancelled, and keeps the object alive meanwhile (with the live query behind it), so a loop
    /// over an object nothing else holds goes on receiving.
    public func makeAsyncIterator() -> Iterator {
        Iterator(deliveries: DeliveriesUntilFailure(center: source.center, source: source))
    }

    /// The iterator of ``LiveValues``: one registration on the object.
    public struct Iterator: AsyncIteratorProtocol {
        private var deliveries: DeliveriesUntilFailure

        init(deliveries: DeliveriesUntilFailure) {
            self.deliveries = deliveries
        }

        /// The next snapshot (itself optional: `.some(nil)` means the value does not exist);
        /// `nil` when the task was cancelled or after the object failed (`dataStatus == .error`,
        /// not loading).
        public mutating func next() async -> Value?? {
            guard let delivery = await deliveries.next() else { return nil }
            return .some(SnapshotBox<Value?>.unbox(delivery.state.snapshot))
        }
    }
}
