import ChatAPI
import Foundation

/// `Benchmarks wire`: encoding the hot frames with `WireJSONWriter` (`WireCodec.encode`, and
/// `encodeBytes`, which makes no `String`) against `JSONEncoder` (`WireCodec.encodeWhole`, what
/// every frame cost before), in the same run: a typical `messageNew` event frame (unshared, so
/// the event is written every time), a typical `message` response frame, and the `sendMessage`
/// request a client writes for it; and the server's decoding of that request (the request
/// reader against `JSONDecoder`).
enum WireBenchmark {
    /// Frames encoded per timed sample.
    static let frames = 20_000

    static func run() {
        print("## wire — encoding one frame: WireJSONWriter against JSONEncoder (median of 5 × \(frames) frames)\n")
        let date = Date(timeIntervalSince1970: 1_764_000_000.25)
        var channel = Channel(
            channelId: "ops-4821", type: .community, metadata: ["floor": 3, "team": "infra"], tags: ["team", "ops"],
            displayName: "Operations", memberCount: 42, messageCount: 1_208, lastActivity: date, createdAt: date,
            updatedAt: date, creatorId: "alice", lastMessageAt: date, lastSequence: 1_208,
            currentUserMembership: .member,
            readSequence: 1_200)
        channel.version = 98_213
        var message = Message(
            messageId: "9f1c2e4a-7b3d-4c55-a0e1-5d2f8b6c9a10", channelId: channel.channelId, sequence: 1_208,
            userId: "alice", text: "Deploy of api-gateway 2.14 is done — @bob can you check the dashboards? 🚀",
            mentionedUserIds: ["bob"], metadata: ["client": "ios"], createdAt: date)
        message.version = 98_213
        let cases: [(String, WireFrame)] = [
            (
                "`messageNew` event",
                .event(EventEnvelope(sequence: 5_311, event: .messageNew(message, channel: channel)))
            ),
            (
                "`message` response",
                .response(
                    id: 77, envelope: ResponseEnvelope(position: 5_311, revision: 98_213, response: .message(message)))
            ),
            (
                "`sendMessage` request (a client's)",
                .request(
                    id: 78,
                    request: .sendMessage(
                        MessageDraft(
                            channelId: channel.channelId, text: message.text, mentionedUserIds: ["bob"],
                            metadata: ["client": "ios"])))
            ),
        ]
        var rows: [[String]] = []
        for (name, frame) in cases {
            let writer = perFrame { blackHole(try? WireCodec.encode(frame)) }
            let bytes = perFrame { blackHole(try? WireCodec.encodeBytes(frame)) }
            let encoder = perFrame { blackHole(try? WireCodec.encodeWhole(frame)) }
            let size = (try? WireCodec.encodeBytes(frame).count) ?? 0
            rows.append([
                name, "\(size) B", Harness.format(writer), Harness.format(bytes), Harness.format(encoder),
                Harness.ratio(encoder / writer),
            ])
        }
        Harness.table(
            ["frame", "size", "writer (String)", "writer (bytes)", "JSONEncoder", "JSONEncoder / writer"], rows)
        print()
        batch(message: message, channel: channel, date: date)
        let plain = WireFrame.request(
            id: 78,
            request: .sendMessage(
                MessageDraft(channelId: channel.channelId, text: message.text, mentionedUserIds: ["bob"])))
        decoding(
            [("`sendMessage` request, no metadata (read by the reader)", plain)]
                + cases.compactMap { name, frame in
                    guard case .request = frame else { return nil }
                    return ("\(name.prefix { $0 != " " }) request with metadata (left to `JSONDecoder`)", frame)
                })
    }

    /// Decoding a request as the server does (`WireCodec.decode`: the plain form of a hot
    /// request read by `WireRequestReader`) against what it did before (the text's bytes to
    /// `JSONDecoder`), in the same run.
    private static func decoding(_ requests: [(String, WireFrame)]) {
        print("Decoding, the server's side (median of 5 × \(frames) frames):\n")
        var rows: [[String]] = []
        for (name, frame) in requests {
            guard let text = try? WireCodec.encode(frame) else { continue }
            let reader = perFrame { blackHole(try? WireCodec.decode(text)) }
            // What `decode` did before the reader: the text's bytes to `JSONDecoder`.
            let decoder = perFrame { blackHole(try? WireCodec.decodeWithJSONDecoder(Data(text.utf8))) }
            rows.append([name, Harness.format(reader), Harness.format(decoder), Harness.ratio(decoder / reader)])
        }
        Harness.table(["frame", "WireCodec.decode (reader)", "JSONDecoder", "JSONDecoder / reader"], rows)
        print()
    }

    /// A send's three frames as the gateway writes them to its sender, one after another into
    /// one buffer: the `message` response, then `messageNew` and the sender's `readMarkerMoved`,
    /// both carrying the one channel value the server rendered for the change. Through a
    /// `WireFrameBatch` (the second event copies the channel the first wrote) against
    /// `WireCodec.encode(_:appendingTo:)` per frame (each encodes its own), in the same run.
    private static func batch(message: Message, channel: Channel, date: Date) {
        print("A send's three frames into one buffer (median of 5 × \(frames) sends):\n")
        let user = User(userId: "alice", metadata: [:], createdAt: date, updatedAt: date, isOnline: true)
        var member = ChannelMember(
            channelId: channel.channelId, userId: "alice", roles: ["moderator"], membership: .member, joinedAt: date,
            readSequence: channel.lastSequence, user: user)
        member.version = channel.version
        let frames: [WireFrame] = [
            .response(
                id: 77, envelope: ResponseEnvelope(position: 5_311, revision: 98_213, response: .message(message))),
            .event(EventEnvelope(sequence: 5_311, event: .messageNew(message, channel: channel))),
            .event(EventEnvelope(sequence: 5_312, event: .readMarkerMoved(member, channel: channel))),
        ]
        let perFrameEncoding = perFrame {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(2_048)
            for frame in frames { try? WireCodec.encode(frame, appendingTo: &bytes) }
            blackHole(bytes)
        }
        let batched = perFrame {
            var batch = WireFrameBatch(capacity: 2_048)
            for frame in frames { try? batch.append(frame) }
            blackHole(batch.takeBytes())
        }
        var sample = WireFrameBatch()
        for frame in frames { try? sample.append(frame) }
        Harness.table(
            ["frames", "bytes", "each frame on its own", "WireFrameBatch", "own / batch"],
            [
                [
                    "response, messageNew, readMarkerMoved", "\(sample.count) B", Harness.format(perFrameEncoding),
                    Harness.format(batched), Harness.ratio(perFrameEncoding / batched),
                ]
            ])
        print()
    }

    /// The median time of one call of `body`.
    private static func perFrame(_ body: () -> Void) -> Double {
        Harness.median { for _ in 0..<frames { body() } } / Double(frames)
    }
}
