import ChatAPI

/// A member in the cache file's row encoding: its version, then every field in the order of
/// `ChannelMember.init`'s parameters; the embedded profile as an optional ``User`` (its fields,
/// its version included).
extension ChannelMember: RowCodable {
    package static var rowTag: UInt8 { 0x4D }  // "M"

    package func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(version)
        writer.write(channelId)
        writer.write(userId)
        writer.write(roles)
        writer.write(byte: membership.rowCode)
        writer.write(mutedUntil)
        writer.write(isMuted)
        writer.write(joinedAt)
        writer.write(readSequence)
        writer.write(user != nil)
        try user?.writeFields(to: &writer)
    }

    package init(fields reader: inout RowReader) throws(RowCodingError) {
        let version = try reader.int()
        // Arguments are evaluated left to right: the reads follow the order of the writes.
        try self.init(
            channelId: reader.string(),
            userId: reader.string(),
            roles: reader.strings(),
            membership: Membership(rowCode: reader.byte()),
            mutedUntil: reader.optionalDate(),
            isMuted: reader.bool(),
            joinedAt: reader.date(),
            readSequence: reader.int(),
            user: reader.isPresent() ? User(fields: &reader) : nil)
        self.version = version
    }
}
