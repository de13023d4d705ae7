/// A node id whose lease another live process holds (``ServerChangeLog/lease(node:)``): a
/// second process with the id must not serve beside the first, since every node applies every
/// entry and answers its own callers by their node and ref.
public struct ServerNodeInUse: Error, CustomStringConvertible, Sendable, Hashable {
    /// The node id.
    public var node: String

    public init(node: String) {
        self.node = node
    }

    public var description: String {
        "node '\(node)' is served by another live process (it holds the node's lease in the change log): give this one another --node-id, or stop the other first"
    }
}
