import ChatAPI
import Foundation
import Testing
import TestSupport

/// The frame codec both sides use: frames round-trip; what is not a frame says what the
/// receiver must do (close 1002, or answer a `failure` for that id); nothing traps.
@Suite struct WireCodecTests {
    private let channel = Channel(
        channelId: "ops", type: .community, createdAt: Date(timeIntervalSince1970: 1_764_000_000.5))

    /// An HTTP refusal's body is `{"error":ERROR}` and decodes, as a client reads it, to the same
    /// error, quotes and control characters in its text included.
    @Test(arguments: Fixtures.errors + [.unauthorized("the token \"x\" expired\n"), .rateLimited(retryAfter: 0.25)])
    func aRefusalBodyDecodesToItsError(_ error: ChatError) throws {
        let body = WireCodec.refusalBody(error)
        let decoded = try JSONDecoder().decode([String: ChatError].self, from: Data(body))
        #expect(decoded == ["error": error])
        #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"error":{"#))
    }

    @Test func everyFrameRoundTrips() throws {
        let user = User(userId: "alice", createdAt: Date(timeIntervalSince1970: 10))
        let frames: [WireFrame] = [
            .hello(protocolVersion: 1, resumeAfter: nil), .hello(protocolVersion: 1, resumeAfter: 41),
            .welcome(protocolVersion: 1, result: ConnectResult(status: .resumed, currentUser: user, lastSequence: 7)),
            .request(
                id: 0, request: .sendMessage(MessageDraft(channelId: "ops", text: "hi", metadata: ["k": [1, nil]]))),
            .request(id: WireProtocol.maximumRequestId, request: .getChannel(channelId: "ops")),
            .response(id: 3, envelope: ResponseEnvelope(position: 2, revision: 9, response: .channel(channel))),
            .failure(id: 4, error: .rateLimited(retryAfter: 1.5)),
            .failure(id: 5, error: .unauthorized("token expired")),
            .event(EventEnvelope(sequence: 12, event: .typingStarted(channelId: "ops", userId: "bob"))),
        ]
        for frame in frames {
            let text = try WireCodec.encode(frame)
            #expect(try WireCodec.decode(text) == frame, "\(text)")
            #expect(text.contains("\"type\":\"\(frame.type)\""))
        }
    }

    @Test func datesAreSecondsSince1970() throws {
        let text = try WireCodec.encode(
            .response(id: 1, envelope: ResponseEnvelope(position: 0, revision: 0, response: .channel(channel))))
        #expect(text.contains("\"createdAt\":1764000000.5"))
    }

    /// What decoding `text` throws; `nil` when it decodes.
    private func failure(decoding text: String) -> WireDecodingError? {
        do {
            _ = try WireCodec.decode(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func whatIsNotTheProtocolSaysSo() {
        for text in [
            "", "hello", "[1,2]", "42", "{}", #"{"type":7}"#, #"{"type":"welcomeX"}"#, #"{"type":"hello"}"#,
            #"{"type":"hello","protocol":"1"}"#, #"{"type":"hello","protocol":1,"resumeAfter":"x"}"#,
            #"{"type":"event","envelope":{"sequence":1}}"#, #"{"type":"welcome","protocol":1}"#,
        ] {
            guard case .notProtocol? = failure(decoding: text) else {
                Issue.record("\(text): \(String(describing: failure(decoding: text)))")
                continue
            }
        }
    }

    @Test func aBadIdClosesAndABadRequestIsAnsweredForItsId() throws {
        for id in ["-1", "1.5", "\"1\"", "null", "9007199254740992", "1e300", "true"] {
            let text = #"{"type":"request","id":\#(id),"request":{"getChannel":{"channelId":"ops"}}}"#
            guard case .badRequestId? = failure(decoding: text) else {
                Issue.record("\(id): \(String(describing: failure(decoding: text)))")
                continue
            }
        }
        guard case .badRequestId? = failure(decoding: #"{"type":"request","request":{}}"#) else {
            Issue.record("a request without an id")
            return
        }
        for request in [
            #"{"getChannel":{}}"#, #"{"nope":{}}"#, #""x""#, "[]", #"{"sendMessage":{"_0":{"text":"hi"}}}"#,
        ] {
            let error = failure(decoding: #"{"type":"request","id":77,"request":\#(request)}"#)
            guard case .badRequest(let id, .invalidArgument(let field, _))? = error else {
                Issue.record("\(request): \(String(describing: error))")
                continue
            }
            #expect(id == 77 && field == "request")
        }
    }

    @Test func fieldsLeftOutTakeTheirDefaults() throws {
        let frame = try WireCodec.decode(
            #"{"type":"request","id":1,"request":{"sendMessage":{"_0":{"channelId":"c","text":"t"}}}}"#)
        #expect(frame == .request(id: 1, request: .sendMessage(MessageDraft(channelId: "c", text: "t"))))
        let query = try WireCodec.decode(#"{"type":"request","id":2,"request":{"queryChannels":{"_0":{}}}}"#)
        #expect(query == .request(id: 2, request: .queryChannels(ChannelListQuery(), after: nil)))
        let hello = try WireCodec.decode(#"{"type":"hello","protocol":1}"#)
        #expect(hello == .hello(protocolVersion: 1, resumeAfter: nil))
        let settings = try WireCodec.decode(
            #"{"type":"request","id":3,"request":{"setModerationSettings":{"channelId":"c","_1":{}}}}"#)
        #expect(settings == .request(id: 3, request: .setModerationSettings(channelId: "c", ModerationSettings())))
        let words = try WireCodec.decode(
            #"{"type":"request","id":4,"request":{"setModerationSettings":{"channelId":"c","_1":{"blockedWords":["x"]}}}}"#
        )
        #expect(
            words
                == .request(
                    id: 4, request: .setModerationSettings(channelId: "c", ModerationSettings(blockedWords: ["x"]))))
    }

    /// Seeded damage of valid frames (bytes flipped, cut, nested deep) never traps: each
    /// decodes or throws a `WireDecodingError`.
    @Test func damagedFramesDecodeOrThrow() throws {
        var random = SeededGenerator(seed: SeededGenerator.testSeed(0x31BE))
        let samples = try [
            WireCodec.encode(
                .request(
                    id: 5,
                    request: .queryChannels(ChannelListQuery(filter: .condition(.type, .equal("live"))), after: nil))),
            WireCodec.encode(
                .response(id: 3, envelope: ResponseEnvelope(position: 2, revision: 9, response: .channel(channel)))),
            String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000),
            #"{"type":"request","id":1,"request":"# + String(repeating: #"{"a":"#, count: 3_000),
        ].map { Array($0.utf8) }
        var (decoded, refused) = (0, 0)
        for _ in 0..<3_000 {
            var bytes = samples.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                if Bool.random(using: &random) {
                    bytes[index] = UInt8.random(in: 0...127, using: &random)
                } else {
                    bytes = Array(bytes.prefix(index))
                }
            }
            // Either a frame that encodes and decodes to itself, or the codec's own error.
            do {
                let frame = try WireCodec.decode(Data(bytes))
                let again = try WireCodec.decode(try WireCodec.encode(frame))
                #expect(again == frame, "\(String(decoding: bytes, as: UTF8.self).prefix(200))")
                decoded += 1
            } catch is WireDecodingError {
                refused += 1
            } catch {
                Issue.record(
                    "not a WireDecodingError: \(error) for \(String(decoding: bytes, as: UTF8.self).prefix(200))")
            }
        }
        // The damage both breaks frames and leaves some decodable (a changed letter in a string).
        #expect(decoded > 0 && refused > 0, "decoded \(decoded), refused \(refused)")
    }
}
