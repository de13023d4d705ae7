/// A bounded log of the newest events of one device, numbered 1, 2, 3 … without gaps: what a
/// reconnecting client is replayed from.
///
/// Holds at most `capacity` elements; appending beyond drops the oldest. Numbering never
/// restarts, so "everything after N" is either fully held or known to be lost.
struct EventLog<Element: Sendable>: Sendable {
    let capacity: Int
    /// A ring: the oldest element is at `head` once the ring is full.
    private var ring: [Element] = []
    private var head = 0
    /// The number of the newest element (0 before the first).
    private(set) var lastSequence = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an event log holds at least one event")
        self.capacity = capacity
        ring.reserveCapacity(min(capacity, 64))
    }

    /// The number of the oldest element held (`lastSequence + 1` when empty).
    var firstSequence: Int { lastSequence - ring.count + 1 }

    /// Appends the element `make` builds for the next sequence number and returns it.
    ///
    /// - Complexity: amortized O(1).
    @discardableResult
    mutating func append(_ make: (_ sequence: Int) -> Element) -> Element {
        lastSequence += 1
        let element = make(lastSequence)
        if ring.count < capacity {
            ring.append(element)
        } else {
            ring[head] = element
            head = (head + 1) % capacity
        }
        return element
    }

    /// The elements numbered `sequence + 1` through `lastSequence`, oldest first; `nil` when
    /// some of them are no longer held, or `sequence` is negative or beyond `lastSequence`.
    ///
    /// - Complexity: O(number returned).
    func elements(after sequence: Int) -> [Element]? {
        guard sequence >= 0, sequence <= lastSequence, sequence + 1 >= firstSequence else { return nil }
        let skip = sequence + 1 - firstSequence
        return (skip..<ring.count).map { ring[(head + $0) % ring.count] }
    }
}
