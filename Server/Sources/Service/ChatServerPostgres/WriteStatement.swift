import ChatServer
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// The statement of ``PostgresServerDatabase``'s writes, prepared once per connection: a batch
/// as arrays, each `WITH` clause writing one table only if the fence advanced; the row is the
/// fence's count (0: superseded).
struct WriteStatement: PostgresPreparedStatement {
    typealias Row = Int
    static let name = "chat_write_v1"
    static let sql = """
        WITH fence AS (
            INSERT INTO chat.meta(key, value) VALUES ($1, $2)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE chat.meta.value < excluded.value
            RETURNING 1
        ), users AS (
            INSERT INTO chat.users(id, value)
            SELECT * FROM unnest($3::text[], $4::bytea[]) WHERE EXISTS (SELECT 1 FROM fence)
            ON CONFLICT (id) DO UPDATE SET value = excluded.value
        ), channels AS (
            INSERT INTO chat.channels(id, info, extras)
            SELECT id, info, CASE WHEN has THEN extras END
            FROM unnest($5::text[], $6::bytea[], $7::bytea[], $8::bool[])
                AS r(id, info, extras, has)
            WHERE EXISTS (SELECT 1 FROM fence)
            ON CONFLICT (id) DO UPDATE SET info = excluded.info, extras = coalesce(excluded.extras, chat.channels.extras)
        ), members AS (
            INSERT INTO chat.members(channel, user_id, value)
            SELECT * FROM unnest($9::text[], $10::text[], $11::bytea[])
            WHERE EXISTS (SELECT 1 FROM fence)
            ON CONFLICT (channel, user_id) DO UPDATE SET value = excluded.value
        ), removed AS (
            DELETE FROM chat.members m USING unnest($12::text[], $13::text[]) AS r(channel, user_id)
            WHERE m.channel = r.channel AND m.user_id = r.user_id AND EXISTS (SELECT 1 FROM fence)
        ), messages AS (
            INSERT INTO chat.messages(channel, sequence, value)
            SELECT * FROM unnest($14::text[], $15::bigint[], $16::bytea[])
            WHERE EXISTS (SELECT 1 FROM fence)
            ON CONFLICT (channel, sequence) DO UPDATE SET value = excluded.value
        ), counters AS (
            INSERT INTO chat.meta(key, value)
            SELECT * FROM unnest($17::text[], $18::bigint[]) WHERE EXISTS (SELECT 1 FROM fence)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
        )
        SELECT count(*) FROM fence
        """

    let fence: String
    let number: Int
    let batch: ServerDatabaseBatch

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 18)
        bindings.append(fence)
        bindings.append(number)
        bindings.append(batch.users.map(\.userId))
        bindings.append(batch.users.map { ByteBuffer(bytes: $0.value) })
        bindings.append(batch.channels.map(\.channelId))
        bindings.append(batch.channels.map { ByteBuffer(bytes: $0.info) })
        // A channel without extras keeps its stored ones: `has` false stands for none.
        bindings.append(batch.channels.map { ByteBuffer(bytes: $0.extras ?? []) })
        bindings.append(batch.channels.map { $0.extras != nil })
        bindings.append(batch.members.map(\.key.channelId))
        bindings.append(batch.members.map(\.key.userId))
        bindings.append(batch.members.map { ByteBuffer(bytes: $0.value) })
        bindings.append(batch.removedMembers.map(\.channelId))
        bindings.append(batch.removedMembers.map(\.userId))
        bindings.append(batch.messages.map(\.channelId))
        bindings.append(batch.messages.map(\.sequence))
        bindings.append(batch.messages.map { ByteBuffer(bytes: $0.value) })
        let keys = Array(batch.counters.keys)
        bindings.append(keys)
        bindings.append(keys.map { batch.counters[$0]! })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
}
