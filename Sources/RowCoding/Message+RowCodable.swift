import ChatAPI
import Foundation

/// A message in the cache file's row encoding: its version, then every field in the order of
/// `Message.init`'s parameters — `isDeleted` as a flags byte: bit 0 whether it is deleted, bit 1
/// whether a sync state follows — then, for a message kept on the device only, its sync state
/// (a byte: 1 syncing, 2 failed, followed by the error as JSON). A synced message (every message
/// a server stores) is written exactly as rows were before sync states (flags 0 or 1, nothing
/// after), so old files and server stores read the same; a local row cut after its flags does
/// not decode.
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
        writer.write(byte: (isDeleted ? 1 : 0) | (syncState.isLocal ? 2 : 0))
        switch syncState {
        case .synced:
            break
        case .syncing:
            writer.write(byte: 1)
        case .failed(let error):
            writer.write(byte: 2)
            guard let json = try? Self.errorEncoder.encode(error) else {
                throw .invalid("a message's failure that cannot be encoded: \(error)")
            }
            writer.write(String(decoding: json, as: UTF8.self))
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
            editedAt: reader.optionalDate())
        self.version = version
        let flags = try reader.byte()
        guard flags <= 3 else { throw .invalid("message flags \(flags)") }
        isDeleted = flags & 1 != 0
        guard flags & 2 != 0 else { return }
        switch try reader.byte() {
        case 1:
            syncState = .syncing
        case 2:
            let json = try reader.string()
            guard let error = try? Self.errorDecoder.decode(ChatError.self, from: Data(json.utf8)) else {
                throw .invalid("a message's failure that is not a ChatError")
            }
            syncState = .failed(error)
        case let tag:
            throw .invalid("sync state \(tag)")
        }
    }

    /// How a failed message's `ChatError` is written: JSON, with a number JSON has no word for
    /// (a server's `retryAfter` of infinity or NaN) as a string, so that no error value fails
    /// the write; rows of numbers read as before.
    private static var errorEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    private static var errorDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
