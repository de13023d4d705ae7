@testable import ChatAPI
import Foundation
import Testing
import TestSupport

/// The request reader (`WireRequestReader`) is a fast path of `WireCodec.decode`: it reads the
/// plain form of the hot requests, and whenever it answers, its frame is the one `JSONDecoder`
/// reads from the same bytes; for everything else it answers `nil`.
@Suite struct WireRequestReaderTests {
    /// What the reader answers for `text`.
    private func read(_ text: String) -> WireFrame? {
        Array(text.utf8).withUnsafeBufferPointer { WireRequestReader.frame(in: $0) }
    }

    /// What `JSONDecoder` reads from `text` (the reader not asked).
    private func decodedByJSONDecoder(_ text: String) -> Result<WireFrame, WireDecodingError> {
        Result { () throws(WireDecodingError) in try WireCodec.decodeWithJSONDecoder(Data(text.utf8)) }
    }

    /// Checks that the reader either passes `text` by or reads what `JSONDecoder` reads; returns
    /// whether it read it.
    @discardableResult
    private func expectSound(_ text: String, _ context: @autoclosure () -> String) -> Bool {
        guard let frame = read(text) else { return false }
        #expect(decodedByJSONDecoder(text) == .success(frame), "\(context()): the reader read \(frame) from \(text)")
        return true
    }

    private static func isHot(_ request: ChatRequest) -> Bool {
        switch request {
        case .sendMessage, .startReading, .stopReading, .startTyping, .stopTyping: true
        default: false
        }
    }

    /// Random frames of every kind, as the writer and as `JSONEncoder` write them: the reader
    /// reads every plain hot request (no escape, no metadata) and nothing it should not.
    @Test func randomFramesAreReadAsJSONDecoderReadsThemOrPassedBy() throws {
        let seed = SeededGenerator.testSeed(0x5245_4144)
        var values = RandomWireValues(seed: seed)
        var read = 0
        for round in 0..<3_000 {
            let frame = round % 2 == 0 ? values.frame() : .request(id: values.count(), request: values.request())
            for text in [try WireCodec.encode(frame), try WireCodec.encodeWhole(frame)] {
                let wasRead = expectSound(text, "seed \(seed), round \(round)")
                if case .request(_, let request) = frame, Self.isHot(request), !text.contains("\\"),
                    !text.contains(#""metadata":{""#) || text.contains(#""metadata":{}"#)
                {
                    #expect(wasRead, "seed \(seed), round \(round): a plain hot request was not read: \(text)")
                }
                if wasRead { read += 1 }
            }
        }
        #expect(read > 300, "seed \(seed): the reader read only \(read) frames")
    }

    /// Frames damaged at random (bytes dropped, added, replaced, repeated): whatever the reader
    /// still reads, `JSONDecoder` reads the same.
    @Test func damagedFramesAreReadAsJSONDecoderReadsThemOrPassedBy() throws {
        let seed = SeededGenerator.testSeed(0x4441_4D47)
        var values = RandomWireValues(seed: seed)
        let alphabet = Array(#"{}[]":,0123456789-+.eE _tnurlfsa\/"#.utf8) + [0x09, 0x0A, 0x0D, 0x00, 0x1F, 0xC3, 0xFF]
        var stillRead = 0
        for round in 0..<20_000 {
            let request: ChatRequest =
                switch round % 5 {
                case 0:
                    .sendMessage(
                        MessageDraft(
                            channelId: "c\(round)", text: "hello \(round)", mentionedUserIds: ["b"],
                            messageId: round % 10 == 0 ? nil : "id-\(round)"))
                case 1: .startReading(channelId: "c")
                case 2: .stopTyping(channelId: "ops")
                default: values.request()
                }
            var bytes = Array(try WireCodec.encode(.request(id: round, request: request)).utf8)
            for _ in 0...Int.random(in: 0...2, using: &values.random) {
                let at = Int.random(in: 0..<bytes.count, using: &values.random)
                switch Int.random(in: 0..<4, using: &values.random) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet.randomElement(using: &values.random)!, at: at)
                case 2: bytes[at] = alphabet.randomElement(using: &values.random)!
                default:
                    let end = min(bytes.count, at + Int.random(in: 1...12, using: &values.random))
                    bytes.insert(contentsOf: bytes[at..<end], at: end)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            let data = Data(bytes)
            let read = bytes.withUnsafeBufferPointer { WireRequestReader.frame(in: $0) }
            if let read {
                stillRead += 1
                let decoded = Result { () throws(WireDecodingError) in try WireCodec.decodeWithJSONDecoder(data) }
                #expect(
                    decoded == .success(read), "seed \(seed), round \(round): \(String(decoding: bytes, as: UTF8.self))"
                )
            }
            // The public decoder agrees with JSONDecoder whichever path it took.
            let viaCodec = Result { () throws(WireDecodingError) in try WireCodec.decode(data) }
            if case .success(let frame) = viaCodec {
                #expect(
                    (try? WireCodec.decodeWithJSONDecoder(data)) == frame,
                    "seed \(seed), round \(round): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        // Some damage leaves a frame the reader takes (a space added, an id changed): the test
        // compared those, not only refusals.
        #expect(stillRead > 100, "seed \(seed): only \(stillRead) damaged frames were read")
    }

    @Test func whiteSpaceAndKeyOrderAreRead() {
        let text = """
             { "request" : { "sendMessage" : { "_0" : { "metadata" : { } , "text" : "hi 💬" ,
            "mentionedUserIds" : [ "bob" , "eve" ] , "channelId" : "ops" } } } ,
            "id" : 12 , "type" : "request" }\t\r\n
            """
        #expect(
            read(text)
                == .request(
                    id: 12,
                    request: .sendMessage(
                        MessageDraft(channelId: "ops", text: "hi 💬", mentionedUserIds: ["bob", "eve"]))))
        expectSound(text, "spaced")
        // Left out, the mentions and metadata are empty, as the draft's decoder takes them.
        let bare = #"{"type":"request","id":0,"request":{"sendMessage":{"_0":{"channelId":"c","text":"t"}}}}"#
        #expect(read(bare) == .request(id: 0, request: .sendMessage(MessageDraft(channelId: "c", text: "t"))))
        expectSound(bare, "bare")
    }

    /// What the reader passes by (`JSONDecoder` then reads it, or says what is wrong).
    @Test(arguments: [
        #"{"type":"request","id":1.0,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":-1,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":01,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":1e2,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":9007199254740992,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":1,"id":2,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c\n"}}}"#,
        #"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c"},"stopTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c","extra":1}}}"#,
        #"{"type":"request","id":1,"request":{"joinChannel":{"channelId":"c"}}}"#,
        #"{"type":"request","id":1,"request":{"sendMessage":{"_0":{"channelId":"c","text":"t","metadata":{"k":1}}}}}"#,
        #"{"type":"request","id":1,"request":{"sendMessage":{"_0":{"channelId":"c","text":"t","mentionedUserIds":null}}}}"#,
        #"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c"}}} x"#,
        #"{"type":"event","id":1,"request":{"startTyping":{"channelId":"c"}}}"#,
        #"{"type":"request","request":{"startTyping":{"channelId":"c"}}}"#,
    ])
    func whatIsNotPlainIsLeftToJSONDecoder(text: String) {
        #expect(read(text) == nil, "\(text)")
    }

    /// A string with an escape is JSONDecoder's, which reads it.
    @Test func anEscapedStringIsReadByJSONDecoder() throws {
        let escaped = #"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c\u0041"}}}"#
        #expect(read(escaped) == nil)
        #expect(try WireCodec.decode(escaped) == .request(id: 1, request: .startTyping(channelId: "cA")))
    }

    /// Bytes that are not UTF-8 are not read (JSONDecoder says what is wrong).
    @Test func bytesThatAreNotUTF8AreLeftToJSONDecoder() {
        var bytes = Array(#"{"type":"request","id":1,"request":{"startTyping":{"channelId":"c"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#""}}}"#.utf8)
        #expect(bytes.withUnsafeBufferPointer { WireRequestReader.frame(in: $0) } == nil)
    }

    /// Every request example of `Docs/Protocol.md` the reader reads, it reads as `JSONDecoder`.
    @Test func protocolDocumentRequestsAreReadAsJSONDecoderReadsThem() throws {
        var read = 0
        for block in try ProtocolDocumentTests.jsonBlocks() where expectSound(block, "Docs/Protocol.md") {
            read += 1
        }
        #expect(read >= 3)
    }
}
