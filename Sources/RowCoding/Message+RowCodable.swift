import ChatAPI

/// A message in the cache file's row encoding: its version, then every field in the order of
/// `Message.init`'s parameters.
extension Message: RowCodable {
    package static var rowTag: UInt8 { 0x47 }  // "G"

    package func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(version)
        writer.write(messageId)
        writer.write(channelId)
        writer.write(sequence)
        writer.write(userId)
        writer.write(text)
        writer.write(mentionedUserIds)
        try JSON.write(metadata, to: &writer)
        writer.write(createdAt)
        writer.write(editedAt)
        writer.write(isDeleted)
    }

    package init(fields reader: inout RowReader) throws(RowCodingError) {
        let version = try reader.int()
        // Arguments are evaluated left to right: the reads follow the order of the writes.
        try self.init(
            messageId: reader.string(),
            channelId: reader.string(),
            sequence: reader.int(),
            userId: reader.string(),
            text: reader.string(),
            mentionedUserIds: reader.strings(),
            metadata: JSON.members(from: &reader),
            createdAt: reader.date(),
            editedAt: reader.optionalDate(),
            isDeleted: reader.bool())
        self.version = version
    }
}
