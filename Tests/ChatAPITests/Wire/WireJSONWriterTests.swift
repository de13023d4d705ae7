@testable import ChatAPI
import Foundation
import Testing
import TestSupport

/// The hand-written JSON of the hot frames (`WireJSONWriter`, through `WireCodec.encode`) is the
/// JSON `JSONEncoder` writes (`WireCodec.encodeWhole`): for random values of every event,
/// response and error, both decode to the frame they came from and hold the same JSON value;
/// numbers and strings are the very same text; what the writer cannot write falls back to
/// `JSONEncoder`.
@Suite struct WireJSONWriterTests {
    /// The JSON value `text` holds, as the package's `JSON` (which tells booleans from numbers).
    private func value(_ text: String) throws -> JSON {
        try JSONDecoder().decode(JSON.self, from: Data(text.utf8))
    }

    /// Checks that the writer's text and `JSONEncoder`'s both decode to `frame` (which checks
    /// every field's type and every value but versions) and hold the same JSON object (which
    /// checks versions, and that no key is missing or added); `context` says which value failed.
    private func expectSameJSON(_ frame: WireFrame, _ context: @autoclosure () -> String) throws {
        let written = try WireCodec.encode(frame)
        let whole = try WireCodec.encodeWhole(frame)
        #expect(try WireCodec.decode(written) == frame, "\(context()): writer \(written)")
        #expect(try WireCodec.decode(whole) == frame, "\(context()): JSONEncoder \(whole)")
        #expect(
            try JSONTree(written) == JSONTree(whole), "\(context()):\nwriter      \(written)\nJSONEncoder \(whole)")
    }

    @Test func randomFramesAreWhatJSONEncoderWrites() throws {
        let seed = SeededGenerator.testSeed(0x3A50_4E57)
        var values = RandomWireValues(seed: seed)
        for round in 0..<3_000 {
            try expectSameJSON(values.frame(), "seed \(seed), round \(round)")
        }
    }

    /// An event frame whose JSON is shared is the same as one whose JSON is not.
    @Test func sharedEventJSONIsTheWritersToo() throws {
        let seed = SeededGenerator.testSeed(0x5A4E)
        var values = RandomWireValues(seed: seed)
        for round in 0..<200 {
            let event = values.event()
            let shared = SharedEventEncoding()
            let first = try WireCodec.encode(.event(EventEnvelope(sequence: 1, event: event, sharing: shared)))
            let second = try WireCodec.encode(.event(EventEnvelope(sequence: 2, event: event, sharing: shared)))
            let alone = try WireCodec.encode(.event(EventEnvelope(sequence: 2, event: event)))
            #expect(second == alone, "seed \(seed), round \(round)")
            // Only the envelope's sequence, which comes first, differs.
            let (head1, head2) = (
                #"{"type":"event","envelope":{"sequence":1,"#, #"{"type":"event","envelope":{"sequence":2,"#
            )
            #expect(first.hasPrefix(head1) && alone.hasPrefix(head2), "seed \(seed), round \(round)")
            #expect(first.dropFirst(head1.count) == alone.dropFirst(head2.count), "seed \(seed), round \(round)")
        }
    }

    /// The generator makes every case of every hot payload: a new event or response case fails
    /// to compile here (the switches have no `default`), and any new case fails this test until
    /// it is generated.
    @Test func everyEventResponseAndErrorCaseIsGenerated() throws {
        var values = RandomWireValues(seed: SeededGenerator.testSeed(0xCA5E))
        var events: Set<String> = []
        var responses: Set<String> = []
        var errors: Set<String> = []
        for _ in 0..<2_000 {
            events.insert(Self.name(of: values.event()))
            responses.insert(Self.name(of: values.response()))
            errors.insert(caseName(values.error()))  // every case has values: Mirror names it
        }
        #expect(try events == ProtocolDocumentTests.declaredCases(in: "Events/ChatEvent.swift"))
        #expect(try responses == ProtocolDocumentTests.declaredCases(in: "Requests/ChatResponse.swift"))
        #expect(try errors == ProtocolDocumentTests.declaredCases(in: "Errors/ChatError.swift"))
        #expect(events.count == 18 && responses.count == 12 && errors.count == 9)
    }

    private static func name(of event: ChatEvent) -> String {
        switch event {
        case .channelCreated: "channelCreated"
        case .channelUpdated: "channelUpdated"
        case .channelDeleted: "channelDeleted"
        case .memberAdded: "memberAdded"
        case .memberRemoved: "memberRemoved"
        case .memberBanned: "memberBanned"
        case .memberUnbanned: "memberUnbanned"
        case .memberMuted: "memberMuted"
        case .memberUnmuted: "memberUnmuted"
        case .memberRoleChanged: "memberRoleChanged"
        case .messageNew: "messageNew"
        case .messageUpdated: "messageUpdated"
        case .messageDeleted: "messageDeleted"
        case .readMarkerMoved: "readMarkerMoved"
        case .typingStarted: "typingStarted"
        case .typingStopped: "typingStopped"
        case .userUpdated: "userUpdated"
        case .presenceChanged: "presenceChanged"
        }
    }

    private static func name(of response: ChatResponse) -> String {
        switch response {
        case .empty: "empty"
        case .channel: "channel"
        case .channels: "channels"
        case .members: "members"
        case .memberPage: "memberPage"
        case .message: "message"
        case .messages: "messages"
        case .user: "user"
        case .users: "users"
        case .bool: "bool"
        case .flagReports: "flagReports"
        case .moderationSettings: "moderationSettings"
        }
    }

    /// The hot requests are written by the writer, not handed to `JSONEncoder`, and a rare one
    /// is refused (then `JSONEncoder` writes it, as `randomFramesAreWhatJSONEncoderWrites` checks).
    @Test func theHotRequestsAreTheWritersAndTheRareOnesJSONEncoders() throws {
        let hot: [ChatRequest] = [
            .sendMessage(
                MessageDraft(channelId: "c", text: "hi \"you\"", mentionedUserIds: ["b"], metadata: ["k": .number(1.5)])
            ),
            .startReading(channelId: "c"), .stopReading(channelId: "c"), .startTyping(channelId: "c"),
            .stopTyping(channelId: "c"),
        ]
        for request in hot {
            var writer = WireJSONWriter()
            try writer.requestFrame(id: 7, request: request)
            let text = String(decoding: writer.bytes, as: UTF8.self)
            #expect(try WireCodec.decode(text) == .request(id: 7, request: request), "\(text)")
            try expectSameJSON(.request(id: 7, request: request), "\(request)")
        }
        var writer = WireJSONWriter()
        #expect(throws: WireJSONWriter.Unwritable.rareRequest) {
            try writer.requestFrame(id: 1, request: .joinChannel(channelId: "c"))
        }
    }

    /// Every frame of `Docs/Protocol.md` but `hello` and `welcome` is written back as
    /// `JSONEncoder` writes it; every event, response and failure as the very JSON value the
    /// document shows (a request's example may leave out what a client leaves empty).
    @Test func protocolDocumentExamplesAreWrittenBackAsShown() throws {
        var checked = 0
        var requests = 0
        for block in try ProtocolDocumentTests.jsonBlocks() {
            let frame = try WireCodec.decode(block)
            switch frame {
            case .event, .response, .failure: break
            case .request:
                try expectSameJSON(frame, "Docs/Protocol.md")
                requests += 1
                continue
            case .hello, .welcome: continue
            }
            try expectSameJSON(frame, "Docs/Protocol.md")
            #expect(try value(WireCodec.encode(frame)) == value(block), "\(block)")
            checked += 1
        }
        #expect(checked >= 10)
        #expect(requests >= 10)
    }

    /// Each string is written as `JSONEncoder` writes it, byte for byte, and reads back whole.
    @Test func stringsAreEscapedAsJSONEncoderEscapesThem() throws {
        var strings = (0..<0x20).map { String(Unicode.Scalar(UInt8($0))) }
        strings += [
            "", "\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{2029}", "é", "💬", "a\"b\\c/d\ne",
            "\\\"", "\"\"", "\u{0}\u{0}", "tail\u{1F}", "\u{1}head", "👩‍👩‍👧 ok", String(repeating: "x", count: 300),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for string in strings {
            var writer = WireJSONWriter()
            writer.strings([string, string])
            let reference = try encoder.encode([string, string])
            #expect(writer.bytes == Array(reference), "\(string.unicodeScalars.map { $0.value })")
            #expect(try JSONDecoder().decode([String].self, from: Data(writer.bytes)) == [string, string])
            let frame = WireFrame.event(
                EventEnvelope(sequence: 1, event: .typingStarted(channelId: string, userId: "")))
            #expect(try WireCodec.decode(WireCodec.encode(frame)) == frame)
        }
        // What the escapes are, whatever JSONEncoder does.
        let expected = [
            "\u{0}": #""\u0000""#, "\u{1F}": #""\u001f""#, "\n": #""\n""#, "\r": #""\r""#, "\t": #""\t""#,
            "\u{8}": #""\b""#, "\u{C}": #""\f""#, "\"": #""\"""#, "\\": #""\\""#, "/": #""/""#, "é": "\"é\"",
        ]
        for (string, text) in expected {
            var writer = WireJSONWriter()
            writer.string(string)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
        }
    }

    /// Each number is written as `JSONEncoder` writes it, byte for byte, and reads back as the
    /// same double.
    @Test func numbersAreWrittenAsJSONEncoderWritesThem() throws {
        let seed = SeededGenerator.testSeed(0xD0B1E)
        var values = RandomWireValues(seed: seed)
        var numbers: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.1, 1_700_000_000, 1_700_000_000.25, 1e15, 1e16, 1e21, 1e22, 1e-5, 0.0001,
            1_764_480_000.123456, 1_764_480_000.1, -1_764_480_000.000_001, 9_007_199_254_740_991, 9_007_199_254_740_992,
            0x1p53 + 2, -9_007_199_254_740_992,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
            Date.distantFuture.timeIntervalSince1970, Date.distantPast.timeIntervalSince1970,
        ]
        numbers += (0..<3_000).map { _ in values.number() }
        let encoder = JSONEncoder()
        for number in numbers {
            var writer = WireJSONWriter()
            writer.beginArray()
            try writer.double(number)
            writer.endArray()
            let text = String(decoding: writer.bytes, as: UTF8.self)
            #expect(text == String(decoding: try encoder.encode([number]), as: UTF8.self), "seed \(seed)")
            let decoded = try JSONDecoder().decode([Double].self, from: Data(writer.bytes))
            #expect(decoded == [number] && decoded[0].sign == number.sign, "seed \(seed): \(text) for \(number)")
        }
        for integer in [Int.min, Int.max, 0, -1, 10, 1 << 53] + (0..<500).map({ _ in values.int() }) {
            var writer = WireJSONWriter()
            writer.int(integer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(integer))
        }
    }

    /// NaN and infinities: JSON has none; the frame fails to encode as it always did.
    @Test func nonFiniteNumbersThrow() throws {
        for number in [Double.nan, .infinity, -.infinity] {
            var writer = WireJSONWriter()
            #expect(throws: WireJSONWriter.Unwritable.nonFiniteNumber) { try writer.double(number) }
            let message = Message(
                messageId: "m", channelId: "c", sequence: 1, userId: "u", text: "", metadata: ["n": .number(number)])
            let event = WireFrame.event(EventEnvelope(sequence: 1, event: .messageUpdated(message)))
            #expect(throws: EncodingError.self) { try WireCodec.encode(event) }
            let failure = WireFrame.failure(id: 1, error: .rateLimited(retryAfter: number))
            #expect(throws: EncodingError.self) { try WireCodec.encode(failure) }
            let response = WireFrame.response(
                id: 1, envelope: ResponseEnvelope(position: 0, revision: 0, response: .message(message)))
            #expect(throws: EncodingError.self) { try WireCodec.encode(response) }
        }
    }

    /// `depth` arrays nested in one another around `1`.
    private func nested(_ depth: Int) -> JSON {
        (0..<depth).reduce(JSON.number(1)) { inner, _ in .array([inner]) }
    }

    /// Metadata nested past `JSON.maximumDepth` is left to `JSONEncoder`, which writes it (or,
    /// past `JSON.maximumDecodingDepth`, refuses it) as before.
    @Test func tooDeepMetadataFallsBackToJSONEncoder() throws {
        var writer = WireJSONWriter()
        #expect(throws: Never.self) { try writer.metadata(["a": nested(JSON.maximumDepth - 1)]) }
        writer = WireJSONWriter()
        #expect(throws: WireJSONWriter.Unwritable.tooDeep) { try writer.metadata(["a": nested(JSON.maximumDepth)]) }
        #expect(throws: WireJSONWriter.Unwritable.tooDeep) { try writer.json(nested(JSON.maximumDepth + 1)) }

        for depth in [JSON.maximumDepth - 1, JSON.maximumDepth, 60] {
            let user = User(userId: "u", metadata: ["deep": nested(depth)])
            try expectSameJSON(.event(EventEnvelope(sequence: 3, event: .userUpdated(user))), "depth \(depth)")
            try expectSameJSON(
                .response(id: 2, envelope: ResponseEnvelope(position: 0, revision: 1, response: .user(user))),
                "depth \(depth)")
        }
        let hostile = User(userId: "u", metadata: ["deep": nested(JSON.maximumDecodingDepth + 10)])
        #expect(throws: EncodingError.self) {
            try WireCodec.encode(.event(EventEnvelope(sequence: 3, event: .userUpdated(hostile))))
        }
    }

    /// Nil optionals are left out, as the synthesized `encodeIfPresent` leaves them out.
    @Test func nilFieldsAreLeftOut() throws {
        let member = ChannelMember(channelId: "c", userId: "u")
        let frame = WireFrame.event(EventEnvelope(sequence: 1, event: .memberMuted(member)))
        let text = try WireCodec.encode(frame)
        #expect(!text.contains("mutedUntil") && !text.contains("\"user\"") && !text.contains("null"))
        #expect(
            text
                == #"{"type":"event","envelope":{"sequence":1,"event":{"memberMuted":{"_0":{"channelId":"c","userId":"u","roles":[],"membership":"member","isMuted":false,"joinedAt":0,"readSequence":0,"version":0}}}}}"#
        )
        let settings = try WireCodec.encode(
            .response(
                id: 7, envelope: ResponseEnvelope(position: 1, revision: 2, response: .moderationSettings(.init()))))
        #expect(
            settings
                == #"{"type":"response","id":7,"envelope":{"position":1,"revision":2,"response":{"moderationSettings":{"_0":{"blockedWords":[],"blockedWordAction":"refuse"}}}}}"#
        )
    }

    /// The comparison above can fail: it tells apart what two writings must not differ in.
    @Test func treesTellApartWhatMatters() throws {
        #expect(try JSONTree(#"{"a":1,"b":[true,null]}"#) == JSONTree(#" { "b" : [ true , null ] , "a" : 1 } "#))
        #expect(try JSONTree(#"{"\u00e9\/":"\ud83d\udcac"}"#) == JSONTree("{\"é/\":\"💬\"}"))
        for (one, other) in [
            ("[1]", "[1.0]"), ("[1]", "[true]"), ("[0]", "[false]"), ("[null]", "[]"), (#"{"a":1}"#, #"{"a":1,"b":2}"#),
            (#"{"version":1}"#, #"{"version":2}"#), ("[1,2]", "[2,1]"), (#"{"":1}"#, "{\"\u{FEFF}\":1}"),
        ] {
            #expect(try JSONTree(one) != JSONTree(other), "\(one) vs \(other)")
        }
        for text in ["", "[1,]", #"{"a"}"#, "[01]", "[1.]", "\"\u{1}\"", #"{"a":1,"a":2}"#, "[1] [2]", #""\x""#] {
            #expect(throws: JSONTree.Malformed.self, "\(text)") { try JSONTree(text) }
        }
    }

    /// Frames appended one after another to one buffer (what the gateway's batches do): each
    /// stretch is that frame's own bytes, a frame the writer refuses half-way (metadata too deep)
    /// leaves nothing of its half behind, and one that cannot be encoded at all (a NaN) throws
    /// and leaves the buffer as it was.
    @Test func framesAppendedToOneBufferAreEachFramesBytes() throws {
        let seed = SeededGenerator.testSeed(0xA99E)
        var values = RandomWireValues(seed: seed)
        let deep = User(userId: "u", metadata: ["a": .string("x"), "deep": nested(JSON.maximumDepth + 2)])
        let fallsBack = WireFrame.event(EventEnvelope(sequence: 9, event: .userUpdated(deep)))
        let unencodable = WireFrame.failure(id: 4, error: .rateLimited(retryAfter: .nan))
        var bytes: [UInt8] = []
        var stretches: [(frame: WireFrame, range: Range<Int>)] = []
        for round in 0..<200 {
            let frame = round % 7 == 3 ? fallsBack : values.frame()
            let start = bytes.count
            try WireCodec.encode(frame, appendingTo: &bytes)
            stretches.append((frame, start..<bytes.count))
            if round % 5 == 0 {
                let before = bytes
                #expect(throws: EncodingError.self) { try WireCodec.encode(unencodable, appendingTo: &bytes) }
                let unchanged = bytes == before
                #expect(unchanged, "seed \(seed), round \(round): a refused frame left bytes behind")
            }
        }
        for (index, stretch) in stretches.enumerated() {
            let own = try WireCodec.encodeBytes(stretch.frame)
            let appended = String(decoding: bytes[stretch.range], as: UTF8.self)
            // JSONEncoder's key order changes from one call to the next: compare trees.
            #expect(
                try JSONTree(appended) == JSONTree(String(decoding: own, as: UTF8.self)),
                "seed \(seed), frame \(index)")
        }
    }

    @Test func bytesAreTheText() throws {
        var values = RandomWireValues(seed: SeededGenerator.testSeed(0xB17E5))
        for _ in 0..<50 {
            let frame = values.frame()
            let bytes = try WireCodec.encodeBytes(frame)
            let text = try WireCodec.encode(frame)
            var writer = WireJSONWriter()
            if case .request(let id, let request) = frame, (try? writer.requestFrame(id: id, request: request)) == nil {
                // A rare request is JSONEncoder's, whose key order changes from one call to the next.
                #expect(try JSONTree(String(decoding: bytes, as: UTF8.self)) == JSONTree(text))
            } else {
                #expect(bytes == Array(text.utf8))
            }
        }
        // JSONEncoder's key order changes from one call to the next: compare values.
        let hello = WireFrame.hello(protocolVersion: 1, resumeAfter: nil)
        #expect(try WireCodec.decode(Data(WireCodec.encodeBytes(hello))) == hello)
    }
}
