import Foundation
import PostgresNIO

/// The values the nodes share that are not chat state (`chat.shared_values`): the APNs provider
/// token every node sends, the console sessions signed out on any node. Each call is bounded
/// like a write (``writeTimeout``): a PostgreSQL that does not answer fails it, it never hangs.
extension PostgresServerDatabase {
    /// The value under `key` and when it expires, unless there is none or it expired by `now`.
    ///
    /// - Throws: ``PostgresStoreError/unreachable(_:)`` when PostgreSQL does not answer in time;
    ///   its error when it refuses.
    public func sharedValue(for key: String, now: Date) async throws -> (value: String, until: Date)? {
        let nowMs = Self.milliseconds(now)
        let work = Task { () throws -> (value: String, until: Date)? in
            let rows = try await self.client.query(
                "SELECT value, until_ms FROM chat.shared_values WHERE key = \(key) AND until_ms > \(nowMs)",
                logger: self.logger
            ).decode((String, Int).self)
            for try await (value, until) in rows { return (value, Self.date(until)) }
            return nil
        }
        return try await withinWriteTimeout(work)
    }

    /// Stores `value` under `key` until `until` where there is no live value, or where the live
    /// value is `replacing`; returns what is stored after (this value, or the one another node
    /// stored first). Removes the values that expired by `now`, under every key.
    ///
    /// Compare-and-set in one transaction: nodes racing with the same `replacing` keep one value.
    ///
    /// - Throws: ``PostgresStoreError/unreachable(_:)`` when PostgreSQL does not answer in time;
    ///   its error when it refuses. Nothing is stored then.
    public func storeSharedValue(
        _ value: String, for key: String, until: Date, replacing: String?, now: Date
    ) async throws -> (value: String, until: Date) {
        let (nowMs, untilMs, replacing) = (Self.milliseconds(now), Self.milliseconds(until), replacing ?? "")
        let work = Task { () throws -> (value: String, until: Date) in
            try await self.client.withTransaction(logger: self.logger) { connection in
                try await connection.query(
                    "DELETE FROM chat.shared_values WHERE until_ms <= \(nowMs)", logger: self.logger)
                // No stored value is empty, so an empty `replacing` replaces nothing.
                try await connection.query(
                    """
                    INSERT INTO chat.shared_values(key, value, until_ms) VALUES (\(key), \(value), \(untilMs))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, until_ms = excluded.until_ms
                    WHERE chat.shared_values.value = \(replacing) AND \(replacing) <> ''
                    """, logger: self.logger)
                let rows = try await connection.query(
                    "SELECT value, until_ms FROM chat.shared_values WHERE key = \(key)", logger: self.logger
                ).decode((String, Int).self)
                for try await (stored, until) in rows { return (stored, Self.date(until)) }
                throw PostgresStoreError.notOurs("the shared value '\(key)' was not kept")
            }
        }
        return try await withinWriteTimeout(work)
    }

    private static func milliseconds(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1_000).rounded(.down)) }

    private static func date(_ milliseconds: Int) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }
}
