import ChatAPI

/// A user in the cache file's row encoding: its version, then every field in the order of
/// `User.init`'s parameters. Also embedded in a member's row (``ChannelMember``).
extension User: RowCodable {
    package static var rowTag: UInt8 { 0x55 }  // "U"

    package func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(version)
        writer.write(userId)
        writer.write(displayName)
        try JSON.write(metadata, to: &writer)
        writer.write(isAdmin)
        writer.write(createdAt)
        writer.write(updatedAt)
        writer.write(isOnline)
        writer.write(lastActiveAt)
    }

    package init(fields reader: inout RowReader) throws(RowCodingError) {
        let version = try reader.int()
        // Arguments are evaluated left to right: the reads follow the order of the writes.
        try self.init(
            userId: reader.string(),
            displayName: reader.optionalString(),
            metadata: JSON.members(from: &reader),
            isAdmin: reader.bool(),
            createdAt: reader.date(),
            updatedAt: reader.date(),
            isOnline: reader.bool(),
            lastActiveAt: reader.optionalDate())
        self.version = version
    }
}
