import ChatAPI
import RowCoding
import SQLiteSupport

/// Reading what the file held at start (``Start``), while the store is made: the event sequence,
/// the remembered lists (most recently touched first, at most ``listCapacity``) and the values
/// their first pages show, so that a fast start shows them at once.
extension CacheStore {
    /// Reads the sequence, the remembered lists and the values they show.
    static func readStart(_ connection: SQLiteConnection) throws -> Start {
        var start = Start()
        try connection.statement("SELECT value FROM meta WHERE key = 'sequence'").query {
            start.sequence = $0.int(at: 0)
        }
        try connection.statement("SELECT value FROM meta WHERE key = 'epoch'").query { start.epoch = $0.int(at: 0) }
        var keysByKind: [StoredKind: [String]] = [:]
        var seen: Set<String> = []
        try connection.statement("SELECT key, kind, keys FROM lists ORDER BY touched DESC LIMIT \(listCapacity)").query
        { row in
            guard let kind = StoredKind(rawValue: row.string(at: 1)),
                let keys = try? row.withBlob(at: 2, Self.decodeKeys)
            else { throw StoreDamage.undecodable(kind: "list", key: row.string(at: 0)) }
            start.lists[row.string(at: 0)] = keys
            for key in keys where seen.insert(kind.rawValue + "/" + key).inserted {
                keysByKind[kind, default: []].append(key)
            }
        }
        start.channels = try values(Channel.self, keys: keysByKind[.channels] ?? [], in: connection)
        start.members = try values(ChannelMember.self, keys: keysByKind[.members] ?? [], in: connection)
        start.messages = try values(Message.self, keys: keysByKind[.messages] ?? [], in: connection)
        // The outbox, whole: its messages show at once and are sent once connected. One a cached
        // list shows was read with the list: each message is in `start` once (the outbox queues
        // what it is given; a second copy would be sent again for ever once the first failed).
        let listed = Set(keysByKind[.messages] ?? [])
        try connection.statement(CacheSchema.outboxMessages).query { row in
            let key = row.string(at: 1)
            guard !listed.contains(key) else { return }
            let message = try decode(Message.self, column: 0, of: row, key: key)
            if message.isLocal { start.messages.append(message) }
        }
        start.users = try values(User.self, keys: keysByKind[.users] ?? [], in: connection)
        return start
    }

    private static func values<Entity: CachedEntity>(
        _ type: Entity.Type, keys: [String], in connection: SQLiteConnection
    ) throws -> [Entity] {
        let statement = try connection.statement("SELECT value FROM \(Entity.storedKind.table) WHERE key = ?1")
        var result: [Entity] = []
        for key in keys {
            try statement.query([key]) { row in result.append(try decode(Entity.self, column: 0, of: row, key: key)) }
        }
        return result
    }

    /// A list's stored keys: a count and the strings (``RowWriter``), nothing after them.
    private static func decodeKeys(_ bytes: UnsafeRawBufferPointer) throws(RowCodingError) -> [String] {
        var reader = RowReader(bytes)
        let keys = try reader.strings()
        try reader.finish()
        return keys
    }
}
