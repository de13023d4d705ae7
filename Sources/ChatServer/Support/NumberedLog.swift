import Foundation

/// A bounded log of the newest elements of a numbered series, numbered 1, 2, 3 … without gaps:
/// a device's replay log of events (``EventHub``) and a channel's kept messages
/// (``ChannelRecord/messages``).
///
/// Bounded two ways: it holds at most `capacity` elements (appending beyond drops the oldest),
/// and ``trim(appendedBefore:)`` drops the elements appended before a cutoff (the server's
/// retention). Numbering never restarts, so "everything after N" is either fully held or known
/// to be lost — and a device that lost some must resync.
///
/// Storage is an array with a moving start, compacted once the dropped prefix is as long as
/// what is held, so every operation is amortized O(1) per element. A dropped element is
/// released at once (its slot is emptied), so the log never keeps more than `capacity`
/// elements alive; the array itself stays within twice the capacity in slots.
struct NumberedLog<Element: Sendable>: Sendable {
    private struct Entry: Sendable {
        var element: Element
        var appendedAt: Date
    }

    let capacity: Int
    /// `entries[start...]` are held, oldest first; `entries[..<start]` are dropped (`nil`).
    private var entries: [Entry?] = []
    private var start = 0
    /// The number of the newest element (0 before the first).
    private(set) var lastSequence = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a numbered log holds at least one element")
        self.capacity = capacity
    }

    /// A log whose newest element is numbered `lastSequence` and which holds `elements`, the
    /// newest ones in order (the last is numbered `lastSequence`), each stamped `now`; only the
    /// newest `capacity` of them are kept. A restored channel's messages.
    init(capacity: Int, restoring elements: [Element], lastSequence: Int, at now: Date) {
        precondition(capacity > 0, "a numbered log holds at least one element")
        precondition(elements.count <= lastSequence, "more elements than numbers")
        self.capacity = capacity
        self.lastSequence = lastSequence
        entries = elements.suffix(capacity).map { Entry(element: $0, appendedAt: now) }
    }

    /// The number of elements held.
    var count: Int { entries.count - start }

    /// The number of the oldest element held (`lastSequence + 1` when empty).
    var firstSequence: Int { lastSequence - count + 1 }

    /// The oldest element held, which the next ``append(at:_:)`` drops when the log is full.
    var oldest: Element? { count > 0 ? entries[start]!.element : nil }

    /// Whether the log holds `capacity` elements (the next append drops the oldest).
    var isFull: Bool { count >= capacity }

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
        // Read the times in place: copying an entry out would retain its element.
        let dropped = entries.withUnsafeBufferPointer { entries in
            var dropped = 0
            while start + dropped < entries.count, entries[start + dropped]!.appendedAt < cutoff { dropped += 1 }
            return dropped
        }
        if dropped > 0 { dropOldest(dropped) }
    }

    /// The element numbered `sequence`, if held.
    ///
    /// - Complexity: O(1).
    subscript(sequence sequence: Int) -> Element? {
        guard sequence >= firstSequence, sequence <= lastSequence else { return nil }
        return entries[start + sequence - firstSequence]!.element
    }

    /// Changes the element numbered `sequence` in place; `nil` (and no call) when it is not held.
    ///
    /// - Complexity: O(1) plus `body`.
    @discardableResult
    mutating func modify<Result>(sequence: Int, _ body: (inout Element) -> Result) -> Result? {
        guard sequence >= firstSequence, sequence <= lastSequence else { return nil }
        return body(&entries[start + sequence - firstSequence]!.element)
    }

    /// The held elements numbered within `range`, oldest first (those not held are left out).
    ///
    /// - Complexity: O(number returned).
    func elements(in range: ClosedRange<Int>) -> [Element] {
        let lower = max(range.lowerBound, firstSequence)
        let upper = min(range.upperBound, lastSequence)
        guard lower <= upper else { return [] }
        return entries[(start + lower - firstSequence)...(start + upper - firstSequence)].map { $0!.element }
    }

    /// Every element held, oldest first.
    var elements: [Element] { entries[start...].map { $0!.element } }

    /// Calls `body` with every element held, oldest first, without copying them into an array.
    ///
    /// - Complexity: O(count).
    func forEachElement(_ body: (Element) -> Void) {
        for index in start..<entries.count { body(entries[index]!.element) }
    }

    /// The elements numbered `sequence + 1` through `lastSequence`, oldest first; `nil` when
    /// some of them are no longer held, or `sequence` is negative or beyond `lastSequence`.
    ///
    /// - Complexity: O(number returned).
    func elements(after sequence: Int) -> [Element]? {
        guard sequence >= 0, sequence <= lastSequence, sequence + 1 >= firstSequence else { return nil }
        let skip = sequence + 1 - firstSequence
        return entries[(start + skip)...].map { $0!.element }
    }

    private mutating func dropOldest(_ n: Int) {
        for index in start..<(start + n) { entries[index] = nil }
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
