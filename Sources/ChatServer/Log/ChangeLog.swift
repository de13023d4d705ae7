/// The one seam every request and console call passes through on its way to the state, as a
/// ``ChangeEntry``. A single node is a log of one; a cluster is the same seam over a shared
/// database.
///
/// - ``local``: the entry applies inline, in the same hold of the engine's lock that admitted
///   it (no copy, no encoding, no task): a request costs what the rules cost. Its changes are
///   handed to the node's ``ServerStore``, if any, and the answer waits for their commit.
/// - ``shared(_:)``: the entry is committed to the cluster's ``ServerChangeLog`` and every
///   node applies it when it reads it back, in log order (``ServerEngine/apply(_:)``); its
///   writer answers once it applied here. A read changes nothing, so it is not logged: it is
///   answered from this node's state once the node has applied every entry committed before
///   it (``ClusterReplica/awaitCommitted()``), which is what makes it see every change any
///   node acknowledged before.
///
/// Above the seam, written once for both: the checks (``ServerCore/checkCurrent(_:linkId:)``,
/// ``ServerCore/admit(_:from:linkId:now:)``, ``ServerCore/checkConnect(of:)``), and what each
/// entry does (``ServerCore/applyRequest(_:from:now:)``, ``ServerCore/apply(_:now:)``).
enum ChangeLog: Sendable {
    /// A single node: the log of one, applied inline.
    case local
    /// A node of a cluster: the log in the shared database, through this node's replica.
    case shared(ClusterReplica)

    /// The replica of a node of a cluster; `nil` on a single node.
    var replica: ClusterReplica? {
        if case .shared(let replica) = self { return replica }
        return nil
    }
}
