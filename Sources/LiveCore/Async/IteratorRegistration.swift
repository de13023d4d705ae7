/// An async iterator's registration on a live value: created with the iterator, removed when the
/// iterator is destroyed (the loop ended) or its task is cancelled. While it exists it keeps the
/// live value alive.
final class IteratorRegistration: Sendable {
    private let center: ObservationCenter
    private let id: Int

    init(center: ObservationCenter) {
        self.center = center
        id = center.addIterator()
    }

    /// The next delivery (the first one carries a `nil` change); `nil` after cancellation.
    func next() async -> Delivery? {
        if Task.isCancelled {
            center.removeIterator(id)
            return nil
        }
        return await center.next(forIterator: id)
    }

    deinit {
        center.removeIterator(id)
    }
}
