extension LiveObject {
    /// A live object whose value is `transform` of this one's, kept current as this one changes,
    /// with the same statuses and error. A `nil` value maps to `nil`.
    ///
    /// The result keeps this object alive (and `owner`, if given: for example the client a
    /// repository hands the value out for); observing it has the usual token semantics.
    /// - Complexity: one call of `transform` per change of this object.
    public func map<Result: Sendable>(
        retaining owner: (any AnyObject & Sendable)? = nil,
        _ transform: @escaping @Sendable (Value) -> Result
    ) -> LiveObject<Result> {
        let derived = LiveObjectSource<Result>(owner: owner)
        let token = source.center.observe(on: .synchronous) { [weak derived] delivery in
            let state = delivery.state
            derived?.publish(
                snapshot: .some(SnapshotBox<Value?>.unbox(state.snapshot).map(transform)), dataStatus: state.dataStatus,
                loadingStatus: state.loadingStatus, error: state.error)
        }
        derived.retain(token)
        return derived.object
    }
}
