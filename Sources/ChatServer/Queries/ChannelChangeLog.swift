/// The channels changed at recent revisions, oldest first, up to a capacity: what a scan that
/// released the lock between chunks re-examines at its end (``ChannelScan``).
///
/// Every change of a channel — its fields, its members, its messages, a viewer's read marker —
/// is stamped with a new revision (``ServerState/emit(_:to:)``), so the ids changed after a
/// revision are exactly the channels whose rendering may differ from what a scan saw then.
///
/// The default capacity, 262,144 changes (about 8 MB), covers a scan of several seconds at tens
/// of thousands of messages a second; a scan that outlasts it is answered in one hold.
///
/// - Complexity: O(1) amortized to record; O(log capacity + changes) to read since a revision.
struct ChannelChangeLog: Sendable {
    /// How many changes it keeps.
    let capacity: Int
    private var revisions: [Int] = []
    private var channelIds: [String] = []
    /// Where the oldest kept change is (the arrays are trimmed in bulk).
    private var start = 0
    /// The newest revision no longer kept (0: nothing was dropped).
    private(set) var droppedThrough = 0

    init(capacity: Int = 262_144) {
        precondition(capacity > 0, "a change log keeps at least one change")
        self.capacity = capacity
    }

    /// Records that `channelId` changed at `revision` (revisions only grow).
    mutating func record(_ channelId: String, at revision: Int) {
        assert(revisions.last.map { $0 <= revision } ?? true, "revisions are recorded in order")
        revisions.append(revision)
        channelIds.append(channelId)
        if revisions.count - start > capacity {
            droppedThrough = revisions[start]
            start += 1
        }
        if start >= capacity {
            revisions.removeFirst(start)
            channelIds.removeFirst(start)
            start = 0
        }
    }

    /// The ids of the channels changed after `revision`, or `nil` when changes after it were
    /// dropped (the log no longer reaches back that far).
    func channels(changedAfter revision: Int) -> Set<String>? {
        guard droppedThrough <= revision else { return nil }
        var low = start
        var high = revisions.count
        while low < high {
            let middle = (low + high) / 2
            if revisions[middle] <= revision { low = middle + 1 } else { high = middle }
        }
        return Set(channelIds[low...])
    }
}
