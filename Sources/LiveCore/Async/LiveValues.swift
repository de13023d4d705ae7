/// The snapshots of a live object as an `AsyncSequence`: first the current snapshot, then each
/// new one. Buffering is bounded: an iteration that falls behind receives only the newest
/// snapshot. The sequence ends when the iterating task is cancelled; breaking out of the loop
/// ends the observation too.
public struct LiveValues<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value?
    private let source: LiveObjectSource<Value>

    init(source: LiveObjectSource<Value>) {
        self.source = source
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(registration: IteratorRegistration(center: source.center))
    }

    public struct Iterator: AsyncIteratorProtocol {
        private let registration: IteratorRegistration

        init(registration: IteratorRegistration) {
            self.registration = registration
        }

        /// The next snapshot (itself optional: `.some(nil)` means the value does not exist);
        /// `nil` when the task was cancelled.
        public mutating func next() async -> Value?? {
            guard let delivery = await registration.next() else { return nil }
            return .some(SnapshotBox<Value?>.unbox(delivery.state.snapshot))
        }
    }
}
