import ChatAPI
import Foundation

/// A device's replay log of events (``EventHub``): the newest events given to the device, each
/// with its sequence number, bounded like a ``NumberedLog`` (a capacity, and a retention by
/// ``trim(appendedBefore:)``).
///
/// A device's events are numbered 1, 2, 3 … after the log's base (on every node of a cluster
/// alike: each counts the device's events in log order). "Everything after N" is either fully
/// held — N is at or after ``coveredAfter`` — or known to be lost.
///
/// - Complexity: append and trim amortized O(1) per event; ``elements(after:)`` O(log n + returned).
struct EventLog: Sendable {
    /// The events held, oldest first; their positions in this inner log are contiguous, and so
    /// are their `sequence` numbers.
    private var inner: NumberedLog<EventEnvelope>
    /// The log's base: the event at the inner log's position `p` is numbered `base + p`.
    private let base: Int
    /// The number of the newest event given (or the log's base when none was).
    private(set) var lastSequence: Int
    /// Every event numbered after this one is held (the number of the newest event dropped, or
    /// the base the log started from).
    private(set) var coveredAfter: Int

    /// An empty log whose events are numbered after `base`.
    init(capacity: Int, base: Int) {
        inner = NumberedLog(capacity: capacity)
        self.base = base
        lastSequence = base
        coveredAfter = base
    }

    /// The number of events held.
    var count: Int { inner.count }

    /// Appends the event `make` builds for the number after ``lastSequence``, stamped `now`; drops
    /// the oldest when full.
    @discardableResult
    mutating func append(at now: Date, _ make: (Int) -> EventEnvelope) -> EventEnvelope {
        let number = lastSequence + 1
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
    ///
    /// - Complexity: O(returned).
    func elements(after sequence: Int) -> [EventEnvelope]? {
        guard sequence >= 0, sequence >= coveredAfter, sequence <= lastSequence else { return nil }
        guard sequence < lastSequence else { return [] }
        return inner.elements(in: (sequence + 1 - base)...(lastSequence - base))
    }
}
