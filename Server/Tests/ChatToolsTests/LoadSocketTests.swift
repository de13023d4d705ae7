import ChatAPI
import Foundation
import ServerTestSupport
import Synchronization
import Testing

@testable import chat_load

/// The load generator's own WebSocket (`LoadSocket`) against a gateway: frames before a reader
/// wait for `nextText`, a reader is handed every frame in the order received and nothing twice
/// (the device's events, numbered 1, 2, 3 … by the server, arrive so numbered), and frames after
/// `stopReading` wait again — what `chat-load requests` counts its answers by.
@Suite(.timeLimit(.minutes(1))) struct LoadSocketTests {
    @Test func aReaderIsHandedEveryFrameInOrderAndTheRestWaitForNextText() async throws {
        try await GatewayHarness.run { gateway in
            let socket = try await LoadSocket.open(
                "ws://127.0.0.1:\(gateway.port)/v1/connect?device=load", headers: [.authorization: "Bearer dev:ann"])
            try await socket.send(WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
            let welcome = try #require(await socket.nextText())
            guard case .welcome = try WireCodec.decode(welcome) else {
                Issue.record("the first frame is not a welcome: \(welcome)")
                return
            }
            try await socket.send(
                WireCodec.encode(
                    .request(id: 0, request: .createChannel(ChannelDraft(type: .live, channelId: "a", userIds: [])))))
            while let text = await socket.nextText(), !FrameText.isAnswer(text) {}

            // Fifty sends in flight at once, read as they come.
            let count = 50
            let seen = Mutex<(answers: [Int], events: [Int])>(([], []))
            let (done, finish) = AsyncStream.makeStream(of: Void.self)
            socket.read { bytes in
                let isAnswer = FrameText.isAnswer(bytes)
                // Done once every send is answered and its own messageNew came: answers and events
                // are separate frames, and an answer may come before the event it caused.
                let complete = seen.withLock { seen -> Bool in
                    if isAnswer, FrameText.isResponse(bytes), let id = FrameText.integer(after: "\"id\":", in: bytes) {
                        seen.answers.append(id)
                    } else if !isAnswer, let sequence = FrameText.integer(after: "\"sequence\":", in: bytes) {
                        seen.events.append(sequence)
                    }
                    return seen.answers.count == count && seen.events.count >= count
                }
                if complete { finish.finish() }
            }
            for id in 1...count {
                try await socket.send(
                    WireCodec.encode(
                        .request(id: id, request: .sendMessage(MessageDraft(channelId: "a", text: "\(id)")))))
            }
            for await _ in done {}
            socket.stopReading()
            let (answers, events) = seen.withLock { $0 }
            // Requests in flight together are answered in any order (Protocol.md).
            #expect(answers.sorted() == Array(1...count), "every answer once")
            #expect(events.count >= count, "each send's own messageNew at least")
            #expect(zip(events, events.dropFirst()).allSatisfy { $0 + 1 == $1 }, "events in order: \(events)")

            // Not read any more: the next answer waits for nextText, as text.
            try await socket.send(
                WireCodec.encode(.request(id: 99, request: .sendMessage(MessageDraft(channelId: "a", text: "last")))))
            var answer: String?
            while answer == nil, let text = await socket.nextText() {
                if FrameText.isAnswer(text) { answer = text }
            }
            #expect(answer.flatMap { FrameText.integer(after: "\"id\":", in: $0) } == 99)
            #expect(seen.withLock { $0.answers.count } == count, "the reader was not called after stopReading")

            await socket.close()
            while await socket.nextText() != nil {}
            await #expect(throws: ChatError.self) { try await socket.send("{}") }
        }
    }

    @Test func aConnectionThatCannotOpenSaysSo() async throws {
        await #expect(throws: ChatError.self) {
            _ = try await LoadSocket.open("ws://127.0.0.1:1/echo")
        }
    }
}
