import ChatGateway
import ChatServerPostgres
import Foundation

/// The cluster's shared values (``ClusterSharedValues``) in its PostgreSQL: what every node of a
/// `--postgres` service reads and writes (the APNs provider token, the console sessions signed
/// out). The table is created with the schema, when the node opens.
struct PostgresSharedValues: ClusterSharedValues {
    let database: PostgresServerDatabase

    func value(for key: String, now: Date) async throws -> SharedValue? {
        try await database.sharedValue(for: key, now: now).map { SharedValue(value: $0.value, until: $0.until) }
    }

    func store(_ value: SharedValue, for key: String, replacing: String?, now: Date) async throws -> SharedValue {
        let stored = try await database.storeSharedValue(
            value.value, for: key, until: value.until, replacing: replacing, now: now)
        return SharedValue(value: stored.value, until: stored.until)
    }
}
