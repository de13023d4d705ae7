import ChatAPI
import Foundation

/// The change log of a single node: a log of one, whose entries apply inline, in the hold of
/// the engine's lock that admitted them, with the same code a cluster's nodes run
/// (``ServerCore/apply(_:at:time:isMine:)``). Nothing is encoded or queued: an entry costs what
/// its rules cost. Its changes go to the engine's ``ServerStore``, if any, and a caller is
/// answered once they are written.
///
/// - Threading: thread-safe (it keeps nothing of its own but its diagnostics).
final class LocalChangeLog: ChangeLog {
    /// The name of the one node in the connections table.
    static let nodeId = "local"

    var nodeId: String { Self.nodeId }
    let diagnostics = ServerDiagnostics()

    /// Every request applies inline.
    func route(_ request: ChatRequest) -> RequestRoute { .inline }

    func commit(
        _ kind: ChangeEntry.Kind, on engine: ServerEngine,
        admit: (inout ServerCore, _ ref: UInt64, _ now: Date) throws(ChatError) -> Void
    ) async throws(ChatError) -> ChangeOutcome {
        let (outcome, ticket) = try engine.withCore { (core: inout ServerCore) throws(ChatError) -> ChangeOutcome in
            let now = engine.clock.now
            let ref = core.applied.newRef()
            try admit(&core, ref, now)
            return try Self.applyInline(kind, ref: ref, to: &core, now: now)
        }
        try await engine.written(ticket)
        return outcome
    }

    /// Applies an entry of `kind` written by this node now, as the next position.
    static func applyInline(_ kind: ChangeEntry.Kind, ref: UInt64 = 0, to core: inout ServerCore, now: Date)
        throws(ChatError) -> ChangeOutcome
    {
        let entry = ChangeEntry(node: nodeId, incarnation: 0, ref: ref, time: now, kind: kind)
        return try core.apply(entry, at: core.applied.position + 1, time: now, isMine: true)
    }

    /// When a timer is due by `now` (a typing indicator, a mute, a rate limit), a tick applies:
    /// what is due expires, as a cluster's tick entry makes it expire on every node.
    ///
    /// - Complexity: O(1) while no timer can be due (`ServerState.hasTimerDue(at:)`).
    func advance(_ core: inout ServerCore, to now: Date) {
        guard core.state.hasTimerDue(at: now) else { return }
        _ = try? Self.applyInline(.tick, to: &core, now: now)
    }

    func stateTime(of applied: AppliedLog, at now: Date) -> Date { now }

    /// Applies what the node owes the log now (an entry applied may end more connections: those
    /// too).
    func settle(_ core: inout ServerCore, now: Date) -> [ChangeEntry.Kind] {
        while core.applied.owesEntries {
            for kind in core.applied.takeEntriesToLog() {
                do throws(ChatError) {
                    _ = try Self.applyInline(kind, to: &core, now: now)
                } catch {
                    // An end of a connection never fails; should one, it is said, not lost.
                    diagnostics.report("an entry of this node (\(kind)) could not be applied", error)
                }
            }
        }
        return []
    }

    func post(_ kinds: [ChangeEntry.Kind], time: Date) {}

    func awaitCommitted() async throws(ChatError) {}

    func wakeUp(_ engine: ServerEngine) -> Date? {
        engine.withCore { core -> Date? in
            let now = engine.clock.now
            engine.housekeep(&core, now: now)
            _ = core.takeNewDeadline()
            // A deadline that housekeeping could not end (an event held for a device that is not
            // connected) waits for other traffic, never spins.
            return core.nextDeadline.flatMap { $0 > now ? $0 : nil }
        }.result
    }

    func close(_ engine: ServerEngine) async {
        await engine.store?.close()
    }

    func halt() {}
}
