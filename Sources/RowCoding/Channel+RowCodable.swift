import ChatAPI

/// A channel in the cache file's row encoding: its version, then every field in the order of
/// `Channel.init`'s parameters (the decoder passes them straight to it).
extension Channel: RowCodable {
    package static var rowTag: UInt8 { 0x43 }  // "C"

    package func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(version)
        writer.write(channelId)
        writer.write(byte: type.rowCode)
        writer.write(isDistinct)
        try JSON.write(metadata, to: &writer)
        writer.write(tags)
        writer.write(isMuted)
        writer.write(isRateLimited)
        writer.write(rateLimit)
        writer.write(rateLimitWindow)
        writer.write(displayName)
        writer.write(memberCount)
        writer.write(messageCount)
        writer.write(lastActivity)
        writer.write(createdAt)
        writer.write(updatedAt)
        writer.write(avatarFileId)
        writer.write(creatorId)
        writer.write(isDeleted)
        writer.write(lastMessageAt)
        writer.write(lastSequence)
        writer.write(byte: currentUserMembership.rowCode)
        writer.write(readSequence)
        writer.write(hasMention)
    }

    package init(fields reader: inout RowReader) throws(RowCodingError) {
        let version = try reader.int()
        // Arguments are evaluated left to right: the reads follow the order of the writes.
        try self.init(
            channelId: reader.string(),
            type: ChannelType(rowCode: reader.byte()),
            isDistinct: reader.bool(),
            metadata: JSON.members(from: &reader),
            tags: reader.strings(),
            isMuted: reader.bool(),
            isRateLimited: reader.bool(),
            rateLimit: reader.int(),
            rateLimitWindow: reader.double(),
            displayName: reader.optionalString(),
            memberCount: reader.int(),
            messageCount: reader.int(),
            lastActivity: reader.date(),
            createdAt: reader.date(),
            updatedAt: reader.date(),
            avatarFileId: reader.optionalString(),
            creatorId: reader.optionalString(),
            isDeleted: reader.bool(),
            lastMessageAt: reader.optionalDate(),
            lastSequence: reader.int(),
            currentUserMembership: Membership(rowCode: reader.byte()),
            readSequence: reader.int(),
            hasMention: reader.bool())
        self.version = version
    }
}
