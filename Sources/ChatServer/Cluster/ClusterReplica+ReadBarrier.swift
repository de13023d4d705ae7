import ChatAPI

extension ClusterReplica {
    /// A read barrier: returns once this node has applied every entry committed before the
    /// call, so what it then reads from its state is at least as new as any answer any node gave
    /// before.
    ///
    /// - Throws: `unavailable` when the log cannot be read or the node does not catch up within
    ///   ``applyTimeout``.
    func awaitCommitted() async throws(ChatError) {
        let head: Int
        do {
            head = try await log.head()
        } catch {
            throw .unavailable("the change log cannot be read: \(error)")
        }
        let start = ContinuousClock.now
        while appliedPosition < head {
            guard ContinuousClock.now - start < Self.applyTimeout, ringReader() else {
                throw .unavailable("this node has not caught up with the change log")
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
