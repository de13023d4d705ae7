/// What a cache's last events carried, kept while responses are outstanding, so that a response
/// can be brought up to date after it is applied.
///
/// A response is applied once the events queued before it were applied, but a few events queued
/// *after* it may already have been applied too (they race the response to the sync engine).
/// Their data is newer than the response's; the sync engine counts them (see
/// ``SyncEngine/performApplying(_:recordedBy:_:)``) and this log hands back what they carried, to
/// apply again on top of the response.
///
/// A pure value: the owning cache keeps it under its lock. Entries are kept only while some
/// response is outstanding, so the log stays as small as the traffic during one round trip.
struct RecentEvents<Element: Sendable>: Sendable {
    /// The number of events recorded so far (every event counts, relevant or not).
    private var eventCount = 0
    /// What recent events carried, stamped with their event count.
    private var entries: [(stamp: Int, element: Element)] = []
    /// The event count when each outstanding response was requested, by response id.
    private var outstanding: [Int: Int] = [:]
    private var nextId = 0

    /// Records one event and what it carried (empty when irrelevant to the cache). Must be called
    /// for every event the sync engine applies, in order.
    mutating func record(_ elements: [Element]) {
        eventCount += 1
        guard !outstanding.isEmpty else { return }
        for element in elements { entries.append((eventCount, element)) }
    }

    /// Starts tracking a response; call before sending its request.
    /// - Returns: the id to pass to ``end(_:newerEvents:)``.
    mutating func begin() -> Int {
        nextId += 1
        outstanding[nextId] = eventCount
        return nextId
    }

    /// Stops tracking a response.
    /// - Parameter newerEvents: how many of the last recorded events were queued after it.
    /// - Returns: what those events carried, oldest first.
    mutating func end(_ id: Int, newerEvents: Int) -> [Element] {
        outstanding[id] = nil
        let threshold = eventCount - max(0, newerEvents)
        let newer = entries.filter { $0.stamp > threshold }.map(\.element)
        let oldestNeeded = outstanding.values.min() ?? eventCount
        entries.removeAll { $0.stamp <= oldestNeeded }
        return newer
    }
}
