import ChatAPI
import Foundation

/// A message in the cache file's row encoding: its version, then every field in the order of
/// `Message.init`'s parameters, then — for a message kept on the device only — its sync state
/// (a byte: 1 syncing, 2 failed, followed by the error as JSON). A synced message (every
/// message a server stores) ends after `isDeleted`, as rows written before sync states did.
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
        switch syncState {
        case .synced:
            break
        case .syncing:
            writer.write(byte: 1)
        case .failed(let error):
            writer.write(byte: 2)
            // A `ChatError` is plain values: encoding cannot fail.
            writer.write(String(decoding: try! JSONEncoder().encode(error), as: UTF8.self))
        }
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
        if reader.remaining > 0 {
            switch try reader.byte() {
            case 1:
                syncState = .syncing
            case 2:
                let json = try reader.string()
                guard let error = try? JSONDecoder().decode(ChatError.self, from: Data(json.utf8)) else {
                    throw .invalid("a message's failure that is not a ChatError")
                }
                syncState = .failed(error)
            case let tag:
                throw .invalid("sync state \(tag)")
            }
        }
    }
}
