import ChatAPI
import Foundation

/// A node of a cluster as a ``ChangeLog``: its entries are committed to the shared log and
/// apply, on every node, when the node reads them back in log order (``ServerEngine/apply(_:)``).
extension ClusterReplica: ChangeLog {
    /// A read is answered here after the read barrier; anything else is logged.
    func route(_ request: ChatRequest) -> RequestRoute {
        request.isRead ? .afterBarrier : .logged
    }

    func commit(
        _ kind: ChangeEntry.Kind, on engine: ServerEngine,
        admit: (inout ServerCore, _ ref: UInt64, _ now: Date) throws(ChatError) -> Void
    ) async throws(ChatError) -> ChangeOutcome {
        let ref = newRef()
        try engine.withCore { (core: inout ServerCore) throws(ChatError) in try admit(&core, ref, engine.clock.now) }
        return try await submit(kind, ref: ref, time: engine.clock.now)
    }

    /// Nothing expires by this node's clock: timers expire as tick entries apply.
    func advance(_ core: inout ServerCore, to now: Date) {}

    /// The cluster's time: that of the last entry applied (before the first, the clock's).
    func stateTime(of applied: AppliedLog, at now: Date) -> Date {
        applied.time == .distantPast ? now : applied.time
    }

    func settle(_ core: inout ServerCore, now: Date) -> [ChangeEntry.Kind] {
        core.applied.takeEntriesToLog()
    }

    func post(_ kinds: [ChangeEntry.Kind], time: Date) {
        for kind in kinds { post(kind, time: time) }
    }

    /// Housekeeps, and logs a tick when a timer is due (it expires as the tick applies, on every
    /// node); returns when to look again.
    func wakeUp(_ engine: ServerEngine) -> Date? {
        let next = engine.withCore { core -> Date? in
            engine.housekeep(&core, now: engine.clock.now)
            _ = core.takeNewDeadline()
            return core.nextDeadline
        }.result
        let now = engine.clock.now
        guard let next else { return nil }
        guard next <= now else { return next }
        post(.tick, time: now)
        return now + 0.25
    }

    /// Tells the service this node is gone, writes its snapshot and closes the log
    /// (``close(nodeDownAt:)``).
    func close(_ engine: ServerEngine) async {
        await close(nodeDownAt: engine.clock.now)
    }
}
