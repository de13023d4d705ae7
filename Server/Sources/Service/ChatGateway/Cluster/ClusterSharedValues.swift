import Foundation

/// Small values every node of a cluster reads and writes under a key, each until it expires —
/// what the nodes agree on that is not chat state: the one APNs provider token they all send
/// (Apple refuses tokens made more often than every 20 minutes), the console sessions signed
/// out on any node. The cluster's PostgreSQL keeps them (the table `chat.shared_values`); a
/// single node needs none.
///
/// Writing is compare-and-set, so that nodes racing to make a value keep one: a value is stored
/// only where there is none, where the stored one has expired, or where it is the one the
/// writer saw refused; otherwise the stored one wins and is returned.
public protocol ClusterSharedValues: Sendable {
    /// The value under `key`, unless there is none or it expired by `now`.
    ///
    /// - Throws: when the store cannot be read (PostgreSQL away).
    func value(for key: String, now: Date) async throws -> SharedValue?

    /// Stores `value` under `key` where there is none, where the stored one expired by `now`,
    /// or where the stored one's value is `replacing`; returns what is stored after — `value`,
    /// or the live value another node stored first.
    ///
    /// Also forgets the values that expired by `now`, under every key.
    ///
    /// - Throws: when the store cannot be written (PostgreSQL away); nothing is stored then.
    func store(_ value: SharedValue, for key: String, replacing: String?, now: Date) async throws -> SharedValue
}
