import Foundation

/// A bounded log of the newest events of one device, numbered 1, 2, 3 … without gaps: what a
/// reconnecting client is replayed from.
///
/// Bounded two ways: it holds at most `capacity` elements (appending beyond drops the oldest),
/// and ``trim(appendedBefore:)`` drops the elements appended before a cutoff (the server's
/// retention). Numbering never restarts, so "everything after N" is either fully held or known
/// to be lost — and a device that lost some must resync.
///
/// Storage is an array with a moving start, compacted once the dropped prefix is as long as
/// what is held, so memory stays within twice the capacity and every operation is amortized
/// O(1) per element.
struct EventLog<Element: Sendable>: Sendable {
    private struct Entry: Sendable {
        var element: Element
        var appendedAt: Date
    }

    let capacity: Int
    /// `entries[start...]` are held, oldest first; `entries[..<start]` are dropped.
    private var entries: [Entry] = []
    private var start = 0
    /// The number of the newest element (0 before the first).
    private(set) var lastSequence = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an event log holds at least one event")
        self.capacity = capacity
    }

    /// The number of elements held.
    var count: Int { entries.count - start }

    /// The number of the oldest element held (`lastSequence + 1` when empty).
    var firstSequence: Int { lastSequence - count + 1 }

    /// Appends the element `make` builds for the next sequence number, stamped with `now`, and
    /// returns it; drops the oldest when the log is full.
    ///
    /// - Complexity: amortized O(1).
    @discardableResult
    mutating func append(at now: Date, _ make: (_ sequence: Int) -> Element) -> Element {
        lastSequence += 1
        let element = make(lastSequence)
        entries.append(Entry(element: element, appendedAt: now))
        if count > capacity { dropOldest(1) }
        return element
    }

    /// Drops the elements appended before `cutoff`.
    ///
    /// - Complexity: amortized O(1) per element dropped; O(1) when nothing is.
    mutating func trim(appendedBefore cutoff: Date) {
        var dropped = 0
        while start + dropped < entries.count, entries[start + dropped].appendedAt < cutoff { dropped += 1 }
        if dropped > 0 { dropOldest(dropped) }
    }

    /// The elements numbered `sequence + 1` through `lastSequence`, oldest first; `nil` when
    /// some of them are no longer held, or `sequence` is negative or beyond `lastSequence`.
    ///
    /// - Complexity: O(number returned).
    func elements(after sequence: Int) -> [Element]? {
        guard sequence >= 0, sequence <= lastSequence, sequence + 1 >= firstSequence else { return nil }
        let skip = sequence + 1 - firstSequence
        return entries[(start + skip)...].map(\.element)
    }

    private mutating func dropOldest(_ n: Int) {
        start += n
        if start == entries.count {
            entries.removeAll()
            start = 0
        } else if start >= count {
            entries.removeFirst(start)
            start = 0
        }
    }
}
