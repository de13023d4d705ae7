import ChatAPI
import Foundation
import RowCoding

/// A ``ChangeEntry`` as the cluster's log stores it: the package's row coding (``RowWriter``),
/// opened by a format byte so that a node can tell an entry written by a newer version from a
/// damaged one.
///
/// Format 3: the format byte, the writer's node id, its incarnation, `ref`, `time`, then a kind
/// byte and its fields. Format 2 has the same fields; format 3 says that the nodes applying it
/// number each device's events 1, 2, 3 … (format 2's numbered them after log positions), so that
/// a node of an earlier version stops at the first entry of this one rather than number events
/// apart from it. Format 1 (read, no longer written) had no incarnation: it reads as 0. The requests a client sends most (a message, reading, typing) and every console call
/// but the two that carry a channel's draft or changes are written field by field; the others
/// (rare: a channel created, a page queried) as the wire protocol's request frame, the one JSON
/// form every request already has (``WireCodec``).
///
/// - Complexity: O(size of the entry) both ways.
extension ChangeEntry {
    /// The format this version writes and the newest it reads.
    static let format: UInt8 = 3

    private enum KindTag {
        static let request: UInt8 = 1
        static let attach: UInt8 = 2
        static let detach: UInt8 = 3
        static let console: UInt8 = 4
        static let tick: UInt8 = 5
        static let nodeDown: UInt8 = 6
    }

    private enum RequestTag {
        /// Any request, as the wire protocol's request frame.
        static let wire: UInt8 = 0
        static let sendMessage: UInt8 = 1
        static let startReading: UInt8 = 2
        static let stopReading: UInt8 = 3
        static let startTyping: UInt8 = 4
        static let stopTyping: UInt8 = 5
    }

    private enum ConsoleTag {
        static let registerUser: UInt8 = 1
        static let createChannel: UInt8 = 2
        static let updateChannel: UInt8 = 3
        static let addMembers: UInt8 = 4
        static let sendMessage: UInt8 = 5
        static let deleteChannel: UInt8 = 6
        static let moderate: UInt8 = 7
        static let dismissFlags: UInt8 = 8
        static let disconnect: UInt8 = 9
        static let banUser: UInt8 = 10
        static let removePushDevice: UInt8 = 11
    }

    /// The entry's bytes.
    ///
    /// - Throws: `invalidArgument` for metadata nested too deep to store (a request the
    ///   server's rules would refuse anyway).
    func encoded() throws(ChatError) -> [UInt8] {
        var writer = RowWriter(capacity: 256)
        writer.write(byte: Self.format)
        writer.write(node)
        writer.write(incarnation)
        writer.write(unsigned: ref)
        writer.write(time)
        do throws(RowCodingError) {
            switch kind {
            case .request(let userId, let deviceId, let request):
                writer.write(byte: KindTag.request)
                writer.write(userId)
                writer.write(deviceId)
                try Self.write(request, to: &writer)
            case .attach(let userId, let deviceId, let resumeAfter):
                writer.write(byte: KindTag.attach)
                writer.write(userId)
                writer.write(deviceId)
                writer.write(resumeAfter != nil)
                if let resumeAfter { writer.write(resumeAfter) }
            case .detach(let userId, let deviceId, let attachedAt):
                writer.write(byte: KindTag.detach)
                writer.write(userId)
                writer.write(deviceId)
                writer.write(attachedAt)
            case .console(let call):
                writer.write(byte: KindTag.console)
                try Self.write(call, to: &writer)
            case .tick:
                writer.write(byte: KindTag.tick)
            case .nodeDown(let node):
                writer.write(byte: KindTag.nodeDown)
                writer.write(node)
            }
        } catch {
            throw .invalidArgument(field: "metadata", reason: "is nested too deep to store")
        }
        return writer.bytes
    }

    /// Reads an entry written by ``encoded()``.
    ///
    /// - Throws: `unavailable` naming the format when the entry was written by a newer version
    ///   of the server (this node must be upgraded to read it), saying so for an entry in the
    ///   JSON form of servers before the row coding, or saying it is damaged.
    static func decode(_ bytes: [UInt8]) throws(ChatError) -> ChangeEntry {
        guard let version = bytes.first else {
            throw .unavailable("the change log holds an empty entry")
        }
        if version == UInt8(ascii: "{") {
            throw .unavailable(
                "the change log holds an entry in the JSON form of an older server, which this one does not read: stop every node (each writes its snapshot as it closes), then start them on this version"
            )
        }
        guard version >= 1 else {
            throw .unavailable("the change log holds an entry that cannot be read: format 0 does not exist")
        }
        guard version <= format else {
            throw .unavailable(
                "the change log holds an entry of format \(version), written by a newer server (this one reads format \(format) and older): upgrade this node"
            )
        }
        do {
            return try bytes.withUnsafeBytes { buffer throws(RowCodingError) -> ChangeEntry in
                var reader = RowReader(buffer)
                let format = try reader.byte()
                let node = try reader.string()
                let incarnation = format >= 2 ? try reader.int() : 0
                let entry = ChangeEntry(
                    node: node, incarnation: incarnation, ref: try reader.unsigned(), time: try reader.date(),
                    kind: try readKind(from: &reader))
                try reader.finish()
                return entry
            }
        } catch {
            throw .unavailable("the change log holds an entry that cannot be read: \(error)")
        }
    }

    private static func readKind(from reader: inout RowReader) throws(RowCodingError) -> Kind {
        let tag = try reader.byte()
        switch tag {
        case KindTag.request:
            return .request(
                userId: try reader.string(), deviceId: try reader.string(), request: try readRequest(&reader))
        case KindTag.attach:
            let userId = try reader.string()
            let deviceId = try reader.string()
            let resumeAfter = try reader.bool() ? try reader.int() : nil
            return .attach(userId: userId, deviceId: deviceId, resumeAfter: resumeAfter)
        case KindTag.detach:
            return .detach(userId: try reader.string(), deviceId: try reader.string(), attachedAt: try reader.int())
        case KindTag.console:
            return .console(try readConsoleCall(&reader))
        case KindTag.tick:
            return .tick
        case KindTag.nodeDown:
            return .nodeDown(try reader.string())
        default:
            throw .invalid("an entry of kind \(tag)")
        }
    }

    // MARK: Requests

    private static func write(_ request: ChatRequest, to writer: inout RowWriter) throws(RowCodingError) {
        switch request {
        case .sendMessage(let draft):
            writer.write(byte: RequestTag.sendMessage)
            try write(draft, to: &writer)
        case .startReading(let channelId):
            writer.write(byte: RequestTag.startReading)
            writer.write(channelId)
        case .stopReading(let channelId):
            writer.write(byte: RequestTag.stopReading)
            writer.write(channelId)
        case .startTyping(let channelId):
            writer.write(byte: RequestTag.startTyping)
            writer.write(channelId)
        case .stopTyping(let channelId):
            writer.write(byte: RequestTag.stopTyping)
            writer.write(channelId)
        default:
            writer.write(byte: RequestTag.wire)
            try writeWire(request, to: &writer)
        }
    }

    private static func readRequest(_ reader: inout RowReader) throws(RowCodingError) -> ChatRequest {
        let tag = try reader.byte()
        switch tag {
        case RequestTag.sendMessage: return .sendMessage(try readDraft(&reader))
        case RequestTag.startReading: return .startReading(channelId: try reader.string())
        case RequestTag.stopReading: return .stopReading(channelId: try reader.string())
        case RequestTag.startTyping: return .startTyping(channelId: try reader.string())
        case RequestTag.stopTyping: return .stopTyping(channelId: try reader.string())
        case RequestTag.wire: return try readWire(&reader)
        default: throw .invalid("a request of kind \(tag)")
        }
    }

    /// A request as the wire's request frame (its JSON), as a string field.
    private static func writeWire(_ request: ChatRequest, to writer: inout RowWriter) throws(RowCodingError) {
        guard let bytes = try? WireCodec.encodeBytes(.request(id: 0, request: request)) else {
            throw .invalid("a request the wire protocol cannot write")
        }
        writer.write(String(decoding: bytes, as: UTF8.self))
    }

    private static func readWire(_ reader: inout RowReader) throws(RowCodingError) -> ChatRequest {
        let text = try reader.string()
        guard case .request(_, let request)? = try? WireCodec.decode(text) else {
            throw .invalid("a request frame that does not decode")
        }
        return request
    }

    private static func write(_ draft: MessageDraft, to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(draft.channelId)
        writer.write(draft.text)
        writer.write(draft.mentionedUserIds)
        try JSON.write(draft.metadata, to: &writer)
        writer.write(draft.messageId)
    }

    private static func readDraft(_ reader: inout RowReader) throws(RowCodingError) -> MessageDraft {
        MessageDraft(
            channelId: try reader.string(), text: try reader.string(), mentionedUserIds: try reader.strings(),
            metadata: try JSON.members(from: &reader), messageId: try reader.optionalString())
    }

    // MARK: Console calls

    private static func write(_ call: ConsoleCall, to writer: inout RowWriter) throws(RowCodingError) {
        switch call {
        case .registerUser(let id, let displayName, let isAdmin):
            writer.write(byte: ConsoleTag.registerUser)
            writer.write(id)
            writer.write(displayName)
            writer.write(isAdmin)
        case .createChannel(let draft):
            writer.write(byte: ConsoleTag.createChannel)
            try writeWire(.createChannel(draft), to: &writer)
        case .updateChannel(let changes):
            writer.write(byte: ConsoleTag.updateChannel)
            try writeWire(.updateChannel(changes), to: &writer)
        case .addMembers(let userIds, let channelId):
            writer.write(byte: ConsoleTag.addMembers)
            writer.write(userIds)
            writer.write(channelId)
        case .sendMessage(let userId, let draft):
            writer.write(byte: ConsoleTag.sendMessage)
            writer.write(userId)
            try write(draft, to: &writer)
        case .deleteChannel(let channelId):
            writer.write(byte: ConsoleTag.deleteChannel)
            writer.write(channelId)
        case .moderate(let request):
            writer.write(byte: ConsoleTag.moderate)
            try writeWire(request, to: &writer)
        case .dismissFlags(let channelId, let subject):
            writer.write(byte: ConsoleTag.dismissFlags)
            writer.write(channelId)
            switch subject {
            case .message(let messageId):
                writer.write(byte: 0)
                writer.write(messageId)
            case .user(let userId):
                writer.write(byte: 1)
                writer.write(userId)
            }
        case .disconnect(let userId, let deviceId):
            writer.write(byte: ConsoleTag.disconnect)
            writer.write(userId)
            writer.write(deviceId)
        case .banUser(let userId, let banned):
            writer.write(byte: ConsoleTag.banUser)
            writer.write(userId)
            writer.write(banned)
        case .removePushDevice(let userId, let device):
            writer.write(byte: ConsoleTag.removePushDevice)
            writer.write(userId)
            device.write(to: &writer)
        }
    }

    private static func readConsoleCall(_ reader: inout RowReader) throws(RowCodingError) -> ConsoleCall {
        let tag = try reader.byte()
        switch tag {
        case ConsoleTag.registerUser:
            return .registerUser(
                id: try reader.string(), displayName: try reader.optionalString(), isAdmin: try reader.bool())
        case ConsoleTag.createChannel:
            guard case .createChannel(let draft) = try readWire(&reader) else { throw .invalid("a channel draft") }
            return .createChannel(draft)
        case ConsoleTag.updateChannel:
            guard case .updateChannel(let changes) = try readWire(&reader) else {
                throw .invalid("a channel's changes")
            }
            return .updateChannel(changes)
        case ConsoleTag.addMembers:
            return .addMembers(try reader.strings(), channelId: try reader.string())
        case ConsoleTag.sendMessage:
            return .sendMessage(userId: try reader.string(), try readDraft(&reader))
        case ConsoleTag.deleteChannel:
            return .deleteChannel(try reader.string())
        case ConsoleTag.moderate:
            return .moderate(try readWire(&reader))
        case ConsoleTag.dismissFlags:
            let channelId = try reader.string()
            switch try reader.byte() {
            case 0: return .dismissFlags(channelId: channelId, .message(messageId: try reader.string()))
            case 1: return .dismissFlags(channelId: channelId, .user(userId: try reader.string()))
            case let kind: throw .invalid("a flag subject of kind \(kind)")
            }
        case ConsoleTag.disconnect:
            return .disconnect(userId: try reader.string(), deviceId: try reader.string())
        case ConsoleTag.banUser:
            return .banUser(userId: try reader.string(), banned: try reader.bool())
        case ConsoleTag.removePushDevice:
            return .removePushDevice(userId: try reader.string(), try PushDevice.read(from: &reader))
        default:
            throw .invalid("a console call of kind \(tag)")
        }
    }
}
