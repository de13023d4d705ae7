/// A value the server stamps with its revision: of two values of one entity (same `id`), the
/// one with the higher `version` is the newer.
///
/// Versions come from one server-wide counter that grows with every change, so they also order
/// an entity against a ``ResponseEnvelope/revision``: a value with a version at or below a
/// response's revision had already been read when the response was.
public protocol Versioned: Identifiable {
    /// The server's revision of this value (0 for values not made by a server).
    var version: Int { get }
}

extension Channel: Versioned {}
extension ChannelMember: Versioned {}
extension Message: Versioned {}
extension User: Versioned {}
