/// An async iterator's registration on a live value: created with the iterator, removed when the
/// iterator is destroyed (the loop ended) or its task is cancelled. While it exists it keeps the
/// live value alive: its source, and with it what the source keeps (a live query and its pager),
/// so `for await update in repository.getMessages(channelId: id).updates` keeps receiving
/// although nothing else holds the collection.
final class IteratorRegistration: Sendable {
    private let center: ObservationCenter
    /// The live value's source, held only to keep it alive while the iteration lasts.
    private let source: any AnyObject & Sendable
    private let id: Int

    init(center: ObservationCenter, source: any AnyObject & Sendable) {
        self.center = center
        self.source = source
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
