import ChatAPI
import Foundation

/// One entry of the change log (``ChangeLog``): what a node asks the service to do. On a node
/// of a cluster every node applies it in log order (``ServerEngine/apply(_:)``), so every
/// outcome of an entry is a function of the state before it and the entry alone — its time
/// included — and every node computes the same state. Stored in the package's row coding
/// (`ChangeEntry+RowCoding.swift`), versioned.
struct ChangeEntry: Sendable, Hashable {
    /// The node that wrote it.
    var node: String
    /// Which run of ``node`` wrote it: the incarnation its lease gave the process
    /// (``ServerChangeLog/lease(node:)``), so that a run never takes another run's entry for its
    /// own. 0 in entries of format 1.
    var incarnation: Int
    /// What its writer waits on (0: nothing).
    var ref: UInt64
    /// When it was written, by its writer's clock; applied at the latest of this and the time
    /// of the entries before it, so time never goes backwards.
    var time: Date
    var kind: Kind

    enum Kind: Sendable, Hashable {
        /// A client's request.
        case request(userId: String, deviceId: String, request: ChatRequest)
        /// A device connects to `node` (``ChangeEntry/node``), resuming after `resumeAfter`.
        case attach(userId: String, deviceId: String, resumeAfter: Int?)
        /// The connection of a device, made by the attach at `attachedAt`, has ended.
        case detach(userId: String, deviceId: String, attachedAt: Int)
        /// A console call.
        case console(ConsoleCall)
        /// Time has passed: timers due by ``ChangeEntry/time`` expire.
        case tick
        /// A node is gone (it said so, or stopped beating): its devices are disconnected.
        case nodeDown(String)
    }
}
