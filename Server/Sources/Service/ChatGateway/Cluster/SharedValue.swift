import Foundation

/// A value the nodes of a cluster share (``ClusterSharedValues``) and the moment it stops
/// counting: after `until` it is as if it were not stored.
public struct SharedValue: Sendable, Equatable {
    /// The value: a provider token, a mark.
    public var value: String
    /// When it stops counting.
    public var until: Date

    public init(value: String, until: Date) {
        self.value = value
        self.until = until
    }
}
