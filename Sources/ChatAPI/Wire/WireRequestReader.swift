/// Reads the request frames a server receives most — a message sent, reading and typing — in
/// their plain form, without `JSONDecoder`: the decoding side of what ``WireJSONWriter`` writes
/// for a client (`{"type":"request","id":7,"request":{"sendMessage":{"_0":{…}}}}`).
///
/// It is a fast path, not a second decoder: it answers only when it is sure of the frame, and
/// `nil` for everything else — another frame type or request, a key it does not know or sees
/// twice, a string with an escape or a control character, bytes that are not UTF-8, a number
/// that is not a plain non-negative integer, non-empty metadata, anything malformed. Then
/// ``WireCodec`` decodes the frame with `JSONDecoder`, which reads it or says what is wrong, as
/// it always did. So whenever it answers, its frame is the one `JSONDecoder` reads from the same
/// bytes (a differential property test and a mutation test hold it to that).
///
/// - Complexity: O(size of the frame), one pass, no allocation but the strings it returns.
struct WireRequestReader: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The request frame in `bytes` (UTF-8), or `nil` when it is not one this reader is sure of.
    static func frame(in bytes: UnsafeBufferPointer<UInt8>) -> WireFrame? {
        var reader = WireRequestReader(bytes)
        guard let frame = reader.frame() else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? frame : nil
    }

    // MARK: The frame and its requests

    /// `{"type":"request","id":ID,"request":REQUEST}`, the keys in any order, each once.
    private mutating func frame() -> WireFrame? {
        var isRequest = false
        var id: Int?
        var request: ChatRequest?
        let complete = object { reader, key in
            if key.is("type"), !isRequest, let type = reader.plainBytes(), type.is("request") {
                isRequest = true
            } else if key.is("id"), id == nil, let value = reader.integer(), value <= WireProtocol.maximumRequestId {
                id = value
            } else if key.is("request"), request == nil, let value = reader.request() {
                request = value
            } else {
                return false
            }
            return true
        }
        guard complete, isRequest, let id, let request else { return nil }
        return .request(id: id, request: request)
    }

    /// `{"CASE":{…}}` for the hot cases: one key, as the synthesized `Codable` of an enum has.
    private mutating func request() -> ChatRequest? {
        var request: ChatRequest?
        let complete = object { reader, key in
            guard request == nil else { return false }
            if key.is("sendMessage") {
                request = reader.unlabelled { $0.messageDraft() }.map(ChatRequest.sendMessage)
            } else if key.is("startReading") {
                request = reader.channelIdCase().map(ChatRequest.startReading)
            } else if key.is("stopReading") {
                request = reader.channelIdCase().map(ChatRequest.stopReading)
            } else if key.is("startTyping") {
                request = reader.channelIdCase().map(ChatRequest.startTyping)
            } else if key.is("stopTyping") {
                request = reader.channelIdCase().map(ChatRequest.stopTyping)
            }
            return request != nil
        }
        return complete ? request : nil
    }

    /// `{"_0":VALUE}`, `value` reading VALUE.
    private mutating func unlabelled<Value>(_ value: (inout Self) -> Value?) -> Value? {
        var result: Value?
        let complete = object { reader, key in
            guard key.is("_0"), result == nil else { return false }
            result = value(&reader)
            return result != nil
        }
        return complete ? result : nil
    }

    /// `{"channelId":ID}`.
    private mutating func channelIdCase() -> String? {
        var channelId: String?
        let complete = object { reader, key in
            guard key.is("channelId"), channelId == nil else { return false }
            channelId = reader.string()
            return channelId != nil
        }
        return complete ? channelId : nil
    }

    /// A `MessageDraft`: `channelId` and `text`, `mentionedUserIds`, empty `metadata` and
    /// `messageId` if present (left out, they are empty or `nil`, as the draft's `init(from:)`
    /// takes them).
    ///
    /// Its strings are made only once the whole draft was read: a draft left to `JSONDecoder`
    /// (metadata, say, which comes last) costs the reader no allocation.
    private mutating func messageDraft() -> MessageDraft? {
        var channelId: UnsafeBufferPointer<UInt8>?
        var text: UnsafeBufferPointer<UInt8>?
        var sawMentions = false
        var mentions: [String] = []
        var sawMetadata = false
        var messageId: UnsafeBufferPointer<UInt8>?
        let complete = object { reader, key in
            if key.is("channelId"), channelId == nil {
                channelId = reader.plainBytes()
                return channelId != nil
            } else if key.is("text"), text == nil {
                text = reader.plainBytes()
                return text != nil
            } else if key.is("mentionedUserIds"), !sawMentions, let strings = reader.strings() {
                sawMentions = true
                mentions = strings
                return true
            } else if key.is("metadata"), !sawMetadata {
                sawMetadata = true
                return reader.object { _, _ in false }
            } else if key.is("messageId"), messageId == nil {
                messageId = reader.plainBytes()
                return messageId != nil
            }
            return false
        }
        guard complete, let channelId = channelId.flatMap(Self.string), let text = text.flatMap(Self.string) else {
            return nil
        }
        var chosenId: String?
        if let messageId {
            guard let id = Self.string(messageId) else { return nil }
            chosenId = id
        }
        return MessageDraft(channelId: channelId, text: text, mentionedUserIds: mentions, messageId: chosenId)
    }

    // MARK: JSON values

    /// An object: `member` reads each member's value (the reader after the colon) and says
    /// whether it was read; `false` for a member it refuses. Whether the whole object was read.
    private mutating func object(_ member: (inout Self, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = plainBytes(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// An array of strings.
    private mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var strings: [String] = []
        if take(UInt8(ascii: "]")) { return strings }
        repeat {
            guard let string = string() else { return nil }
            strings.append(string)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? strings : nil
    }

    /// A string with no escape and no control character, of valid UTF-8.
    private mutating func string() -> String? {
        plainBytes().flatMap(Self.string)
    }

    /// `bytes` as a string, if they are valid UTF-8.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // Decoding repairs what is not UTF-8, so the string has these very bytes only if they
        // were valid (`String(validating:as:)` is not on every platform this package supports).
        let string = String(decoding: bytes, as: UTF8.self)
        return string.utf8.elementsEqual(bytes) ? string : nil
    }

    /// The bytes between the quotes of a string with no escape and no control character
    /// (`nil` for any other string, or for what is not a string).
    private mutating func plainBytes() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return UnsafeBufferPointer(rebasing: bytes[start..<index])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A non-negative integer in plain digits (no sign, fraction, exponent or leading zero),
    /// of at most 16 digits.
    private mutating func integer() -> Int? {
        skipSpace()
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
            if index - start > 16 { return nil }
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        // A number must end here, not run on into a fraction or an exponent.
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "-"), UInt8(ascii: "+"):
                return nil
            default:
                break
            }
        }
        return value
    }

    /// Skips white space, then takes `byte` if it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips JSON's white space: space, tab, line feed, carriage return.
    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are `text`'s UTF-8.
    fileprivate func `is`(_ text: StaticString) -> Bool {
        elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
