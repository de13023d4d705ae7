import ChatAPI
import Foundation

/// A device's replay log of events (``EventHub``): the newest events given to the device, each
/// with its sequence number, bounded like a ``NumberedLog`` (a capacity, and a retention by
/// ``trim(appendedBefore:)``).
///
/// Numbers only grow, but need not be contiguous: a node of a cluster numbers an event after the
/// position of the change-log entry that caused it (``ClusterNumbering``), so every node gives
/// a device's event the same number whichever node the device is connected to, and a device's
/// numbers skip the positions of changes it does not see. "Everything after N" is then either
/// fully held — N is at or after ``coveredAfter`` — or known to be lost.
///
/// - Complexity: append and trim amortized O(1) per event; ``elements(after:)`` O(log n + returned).
struct EventLog: Sendable {
    /// The events held, oldest first; their positions in this inner log are contiguous, their
    /// `sequence` numbers only increasing.
    private var inner: NumberedLog<EventEnvelope>
    /// The number of the newest event given (or the log's base when none was).
    private(set) var lastSequence: Int
    /// Every event numbered after this one is held (the number of the newest event dropped, or
    /// the base the log started from).
    private(set) var coveredAfter: Int

    /// An empty log whose events are numbered after `base`.
    init(capacity: Int, base: Int) {
        inner = NumberedLog(capacity: capacity)
        lastSequence = base
        coveredAfter = base
    }

    /// The number of events held.
    var count: Int { inner.count }

    /// Appends the event `make` builds for `sequence` (or, when `sequence` is `nil`, for the
    /// number after ``lastSequence``), stamped `now`; drops the oldest when full.
    ///
    /// - Precondition: `sequence` is above ``lastSequence``.
    @discardableResult
    mutating func append(numbered sequence: Int? = nil, at now: Date, _ make: (Int) -> EventEnvelope) -> EventEnvelope {
        let number = sequence ?? lastSequence + 1
        precondition(number > lastSequence, "event numbers only grow")
        if inner.isFull, let oldest = inner.oldest { coveredAfter = oldest.sequence }
        lastSequence = number
        return inner.append(at: now) { _ in make(number) }
    }

    /// Drops the events appended before `cutoff`.
    mutating func trim(appendedBefore cutoff: Date) {
        let before = inner.count
        inner.trim(appendedBefore: cutoff)
        guard inner.count < before else { return }
        coveredAfter = inner.count > 0 ? inner[sequence: inner.firstSequence]!.sequence - 1 : lastSequence
    }

    /// The events numbered after `sequence`, oldest first; `nil` when some of them are no
    /// longer held, or `sequence` is negative or beyond ``lastSequence``.
    func elements(after sequence: Int) -> [EventEnvelope]? {
        guard sequence >= 0, sequence >= coveredAfter, sequence <= lastSequence else { return nil }
        // The first held event numbered after `sequence`: binary search over the inner positions.
        var low = inner.firstSequence
        var high = inner.lastSequence + 1
        while low < high {
            let middle = (low + high) / 2
            if inner[sequence: middle]!.sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        guard low <= inner.lastSequence else { return [] }
        return inner.elements(in: low...inner.lastSequence)
    }
}
