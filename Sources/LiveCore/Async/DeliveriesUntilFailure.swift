/// What ``LiveUpdates`` and ``LiveValues`` iterate: the deliveries of one
/// ``IteratorRegistration``, up to and including the one reporting that the live value failed
/// (`dataStatus == .error` and not loading again), then `nil`. Dropping the registration there
/// ends the observation; so does cancellation.
struct DeliveriesUntilFailure: Sendable {
    private var registration: IteratorRegistration?

    /// Registers on `center`, keeping `source` (the live value's writing side) alive meanwhile.
    init(center: ObservationCenter, source: any AnyObject & Sendable) {
        registration = IteratorRegistration(center: center, source: source)
    }

    /// The next delivery; `nil` once the task was cancelled or after the failed one.
    mutating func next() async -> Delivery? {
        guard let delivery = await registration?.next() else {
            registration = nil
            return nil
        }
        if delivery.state.dataStatus == .error && delivery.state.loadingStatus != .loading { registration = nil }
        return delivery
    }
}
