import PostgresNIO

/// The statement of an append (``PostgresServerDatabase/append(_:node:)``), prepared once per
/// connection: it numbers the entries by moving `chat.log_head` forward, inserts them, and
/// notifies `chat_log` with the new head — one round trip, in a transaction of its own. The
/// notification is sent at its commit; appends already take turns on the head row through their
/// commits, so the notifications' lock makes none wait longer. The row is the head after it.
struct AppendStatement: PostgresPreparedStatement {
    typealias Row = Int
    static let name = "chat_append_v1"
    static let sql = """
        WITH head AS (
            UPDATE chat.log_head SET position = position + $1 WHERE id = 1 RETURNING position
        ), written AS (
            INSERT INTO chat.log(position, node, entry, written_at)
            SELECT head.position - $1 + r.ordinal, $2, r.entry, extract(epoch FROM clock_timestamp())
            FROM head, unnest($3::bytea[]) WITH ORDINALITY AS r(entry, ordinal)
        )
        SELECT position, pg_notify('\(PostgresServerDatabase.notificationChannel)', position::text) FROM head
        """

    let node: String
    let entries: [[UInt8]]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(entries.count)
        bindings.append(node)
        bindings.append(entries.map { ByteBuffer(bytes: $0) })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int { try row.makeRandomAccess()[0].decode(Int.self) }
}
