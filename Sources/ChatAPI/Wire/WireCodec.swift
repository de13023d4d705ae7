import Foundation

/// Reads and writes ``WireFrame``s: one JSON object per WebSocket text frame, the payloads in
/// their `Codable` form, dates as seconds since 1970. Both sides of the protocol use it, so
/// they cannot disagree on an encoding.
///
/// Decoding never traps and never recurses without bound (`JSON` refuses documents nested
/// deeper than `JSON.maximumDecodingDepth`); what it refuses says what the receiver does
/// (``WireDecodingError``). Every call is O(size of the frame) and thread-safe.
public enum WireCodec {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// The frame as the text of one WebSocket text frame.
    ///
    /// The hot frames — `event`, `response`, `failure`, and the requests a client sends most
    /// (`sendMessage`, `startReading`, `stopReading`, `startTyping`, `stopTyping`) — are written
    /// by the package's own JSON writer (`WireJSONWriter`), the others (`hello` and `welcome`,
    /// one per connection; the rarer requests) by `JSONEncoder`; either way the text is the JSON object
    /// `JSONEncoder` writes for the frame (the same keys, values and number texts; an object's
    /// keys perhaps in another order). A frame the writer cannot write exactly as `JSONEncoder` would (a non-finite
    /// number, metadata nested deeper than `JSON.maximumDepth`) is encoded by `JSONEncoder`,
    /// which writes or refuses it as it always did.
    ///
    /// An event frame is written around its event's JSON, which envelopes of one change share
    /// (the envelope's package-internal `sharedEncoding`): delivered to many devices, an event is encoded once
    /// and only its `sequence` per frame. The result is the same JSON object either way.
    ///
    /// - Throws: `EncodingError` only for a value JSON cannot hold (a NaN or infinite number,
    ///   which no value from a server has).
    /// - Complexity: O(size of the frame); for an event whose JSON is already shared, O(size of
    ///   the frame) copying and no encoding.
    public static func encode(_ frame: WireFrame) throws -> String {
        String(decoding: try encodeBytes(frame), as: UTF8.self)
    }

    /// The body of an HTTP refusal: `{"error":ERROR}`, the error written as in a failure frame
    /// (what `chat-server` answers a connect it refuses before the upgrade, with the status that
    /// names the case). A `rateLimited` whose `retryAfter` is not finite is written with 0.
    ///
    /// - Complexity: O(size of the error's texts).
    public static func refusalBody(_ error: ChatError) -> [UInt8] {
        var writer = WireJSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        do {
            try writer.error(error)
        } catch {
            return refusalBody(.rateLimited(retryAfter: 0))
        }
        writer.endObject()
        return writer.bytes
    }

    /// The frame as the UTF-8 bytes of one WebSocket text frame: the text ``encode(_:)``
    /// returns, without making a `String` of it, for a server that writes bytes to its socket
    /// (one copy fewer per frame).
    ///
    /// - Throws: as ``encode(_:)``.
    /// - Complexity: as ``encode(_:)``.
    public static func encodeBytes(_ frame: WireFrame) throws -> [UInt8] {
        var bytes: [UInt8] = []
        switch frame {
        case .event(let envelope) where envelope.sharedEncoding != nil:
            break  // reserved exactly once the shared JSON's size is known
        case .failure, .request:
            bytes.reserveCapacity(256)
        default:
            bytes.reserveCapacity(1_024)
        }
        try encode(frame, appendingTo: &bytes)
        return bytes
    }

    /// Appends the frame's UTF-8 bytes (what ``encodeBytes(_:)`` returns) to `bytes`: for a
    /// network front that writes several frames from one buffer, encoding each in place after
    /// the one before, with no array of its own.
    ///
    /// - Throws: as ``encode(_:)``; `bytes` is then as it was.
    /// - Complexity: as ``encode(_:)``, amortized (the buffer grows by doubling).
    public static func encode(_ frame: WireFrame, appendingTo bytes: inout [UInt8]) throws {
        var writer = WireJSONWriter(appendingTo: &bytes)
        defer { bytes = writer.takeBytes() }
        try encode(frame, into: &writer)
    }

    /// Appends the frame's UTF-8 bytes to what `writer` wrote (a top-level value of its own):
    /// the one encoder of ``encode(_:appendingTo:)`` and ``WireFrameBatch``.
    ///
    /// - Throws: as ``encode(_:)``; `writer` then holds what it held.
    static func encode(_ frame: WireFrame, into writer: inout WireJSONWriter) throws {
        writer.startNextValue()
        switch frame {
        case .event(let envelope):
            guard let shared = envelope.sharedEncoding else {
                // One device's event: written in place, not as JSON of its own then copied.
                return try append(to: &writer) {
                    try $0.eventFrame(sequence: envelope.sequence, event: envelope.event)
                } orElse: {
                    try encodeWholeData(frame)
                }
            }
            let event = try shared.json { try json(of: envelope.event) }
            writer.reserve(event.count + 64)
            writer.eventFrame(sequence: envelope.sequence, event: event)
        case .response(let id, let envelope):
            try append(to: &writer) {
                try $0.responseFrame(id: id, envelope: envelope)
            } orElse: {
                try encodeWholeData(frame)
            }
        case .failure(let id, let error):
            try append(to: &writer) {
                try $0.failureFrame(id: id, error: error)
            } orElse: {
                try encodeWholeData(frame)
            }
        case .request(let id, let request):
            try append(to: &writer) {
                try $0.requestFrame(id: id, request: request)
            } orElse: {
                try encodeWholeData(frame)
            }
        case .hello, .welcome:
            writer.append(topLevel: try encodeWholeData(frame))
        }
    }

    /// Appends what `body` writes to `writer`; when the writer refuses
    /// (``WireJSONWriter/Unwritable``), what it wrote is dropped and `fallback`'s `JSONEncoder`
    /// bytes are appended instead (nothing when `fallback` throws).
    private static func append(
        to writer: inout WireJSONWriter, _ body: (inout WireJSONWriter) throws -> Void,
        orElse fallback: () throws -> Data
    ) throws {
        let start = writer.count
        do {
            try body(&writer)
        } catch {
            writer.truncate(to: start)
            writer.append(topLevel: try fallback())
        }
    }

    /// What `body` writes with a fresh ``WireJSONWriter`` of `capacity` bytes; when the writer
    /// refuses (``WireJSONWriter/Unwritable``), `fallback`'s `JSONEncoder` bytes.
    private static func write(
        capacity: Int = 1_024, _ body: (inout WireJSONWriter) throws -> Void, orElse fallback: () throws -> Data
    ) throws -> [UInt8] {
        var writer = WireJSONWriter(capacity: capacity)
        do {
            try body(&writer)
            return writer.bytes
        } catch {
            return Array(try fallback())
        }
    }

    /// The frame encoded as one value by `JSONEncoder`, events included: the reference
    /// ``encode(_:)`` agrees with (tests and the `wire` benchmark compare the two).
    package static func encodeWhole(_ frame: WireFrame) throws -> String {
        String(decoding: try encodeWholeData(frame), as: UTF8.self)
    }

    /// The frame encoded by `JSONEncoder`.
    private static func encodeWholeData(_ frame: WireFrame) throws -> Data {
        try encoder.encode(FrameBox(frame: frame))
    }

    /// An event's JSON, as it appears inside its envelope: written by ``WireJSONWriter``, or by
    /// `JSONEncoder` when the writer refuses it.
    private static func json(of event: ChatEvent) throws -> [UInt8] {
        try write {
            try $0.event(event)
        } orElse: {
            try encoder.encode(event)
        }
    }

    /// The frame in `text`.
    ///
    /// The requests a client sends most, in their plain form (no escapes, no metadata), are
    /// read by the package's own reader (`WireRequestReader`); every other frame by
    /// `JSONDecoder`. The reader answers only what `JSONDecoder` would read the same.
    ///
    /// - Throws: ``WireDecodingError``: `notProtocol` or `badRequestId` (close the connection
    ///   with 1002), or `badRequest` (answer that request with a `failure`).
    public static func decode(_ text: String) throws(WireDecodingError) -> WireFrame {
        var text = text
        if let frame = text.withUTF8({ WireRequestReader.frame(in: $0) }) { return frame }
        return try decodeWithJSONDecoder(Data(text.utf8))
    }

    /// The frame in the UTF-8 bytes `data` (see ``decode(_:)-(String)``).
    public static func decode(_ data: Data) throws(WireDecodingError) -> WireFrame {
        let read = data.withUnsafeBytes { raw in
            WireRequestReader.frame(in: raw.assumingMemoryBound(to: UInt8.self))
        }
        if let read { return read }
        return try decodeWithJSONDecoder(data)
    }

    /// The frame in `data`, read by `JSONDecoder`: every frame the request reader does not take
    /// (`WireRequestReader`, the plain form of the requests a client sends most).
    package static func decodeWithJSONDecoder(_ data: Data) throws(WireDecodingError) -> WireFrame {
        let decoded: DecodedFrame
        do {
            decoded = try decoder.decode(DecodedFrame.self, from: data)
        } catch {
            throw .notProtocol("not a JSON object (\(summary(of: error)))")
        }
        return try decoded.result.get()
    }

    /// One sentence about a decoding error: what was wrong, and where.
    static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "" : " at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)'\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(context.debugDescription)\(path(context))"
        @unknown default: return "\(error)"
        }
    }
}

private enum FrameKey: String, CodingKey {
    case type, id, request, envelope, error, result, resumeAfter
    case protocolVersion = "protocol"
}

/// Encodes a frame as its JSON object.
private struct FrameBox: Encodable {
    let frame: WireFrame

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameKey.self)
        try container.encode(frame.type, forKey: .type)
        switch frame {
        case .hello(let version, let resumeAfter):
            try container.encode(version, forKey: .protocolVersion)
            // `null` is written, not left out: "no resume" is said explicitly.
            try container.encode(resumeAfter, forKey: .resumeAfter)
        case .welcome(let version, let result):
            try container.encode(version, forKey: .protocolVersion)
            try container.encode(result, forKey: .result)
        case .request(let id, let request):
            try container.encode(id, forKey: .id)
            try container.encode(request, forKey: .request)
        case .response(let id, let envelope):
            try container.encode(id, forKey: .id)
            try container.encode(envelope, forKey: .envelope)
        case .failure(let id, let error):
            try container.encode(id, forKey: .id)
            try container.encode(error, forKey: .error)
        case .event(let envelope):
            try container.encode(envelope, forKey: .envelope)
        }
    }
}

/// Decodes a frame in one pass, keeping what was wrong as a value: a bad `request` must still
/// say which `id` it had.
private struct DecodedFrame: Decodable {
    let result: Result<WireFrame, WireDecodingError>

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameKey.self)
        result = Self.frame(in: container)
    }

    private static func frame(in container: KeyedDecodingContainer<FrameKey>) -> Result<WireFrame, WireDecodingError> {
        guard let type = try? container.decode(String.self, forKey: .type) else {
            return .failure(.notProtocol(container.contains(.type) ? "'type' is not a string" : "no 'type'"))
        }
        func field<Value: Decodable>(_ key: FrameKey, _: Value.Type) -> Result<Value, WireDecodingError> {
            do {
                return .success(try container.decode(Value.self, forKey: key))
            } catch {
                return .failure(.notProtocol("'\(type)' frame: \(WireCodec.summary(of: error))"))
            }
        }
        func id() -> Result<Int, WireDecodingError> {
            guard let id = try? container.decode(Int.self, forKey: .id),
                (0...WireProtocol.maximumRequestId).contains(id)
            else {
                return .failure(
                    .badRequestId(container.contains(.id) ? "'id' is out of range or not an integer" : "no 'id'"))
            }
            return .success(id)
        }
        switch type {
        case "hello":
            return field(.protocolVersion, Int.self).flatMap { version in
                // A missing `resumeAfter` is a fresh start, as `null` is.
                do {
                    let resumeAfter = try container.decodeIfPresent(Int.self, forKey: .resumeAfter)
                    return .success(.hello(protocolVersion: version, resumeAfter: resumeAfter))
                } catch {
                    return .failure(.notProtocol("'hello' frame: 'resumeAfter' is not an integer or null"))
                }
            }
        case "welcome":
            return field(.protocolVersion, Int.self).flatMap { version in
                field(.result, ConnectResult.self).map { .welcome(protocolVersion: version, result: $0) }
            }
        case "request":
            return id().flatMap { id in
                do {
                    return .success(.request(id: id, request: try container.decode(ChatRequest.self, forKey: .request)))
                } catch {
                    let reason = WireCodec.summary(of: error)
                    return .failure(.badRequest(id: id, error: .invalidArgument(field: "request", reason: reason)))
                }
            }
        case "response":
            return id().flatMap { id in field(.envelope, ResponseEnvelope.self).map { .response(id: id, envelope: $0) }
            }
        case "failure":
            return id().flatMap { id in field(.error, ChatError.self).map { .failure(id: id, error: $0) } }
        case "event":
            return field(.envelope, EventEnvelope.self).map { .event($0) }
        default:
            return .failure(.notProtocol("unknown type '\(type.prefix(64))'"))
        }
    }
}
