import ChatAPI
import Foundation
import Locking
import Testing

@testable import ChatServer

/// A session whose network front can queue a frame without waiting (`queueFrame`): a request
/// that finds another running at the server's lock is queued there, with no task, and answered
/// from the thread that runs it. The test holds the lock's combiner role itself, so that every
/// request it sends meanwhile is queued.
@Suite(.timeLimit(.minutes(1))) struct WireSessionQueuedAnswersTests {
    /// What the session sent, through `output` and through `queueFrame`, in order of each.
    final class Sent: Sendable {
        private let state = Lock((output: [WireFrame](), queued: [WireFrame]()))
        var output: [WireFrame] { state.withLock { $0.output } }
        var queued: [WireFrame] { state.withLock { $0.queued } }
        func fromOutput(_ output: WireOutput) {
            if case .frame(let frame) = output { state.withLock { $0.output.append(frame) } }
        }
        func fromQueue(_ frame: WireFrame) { state.withLock { $0.queued.append(frame) } }

        /// Waits (bounded) until `output` holds an answer to request `id`.
        func outputAnswer(_ id: Int) async -> WireFrame? {
            for _ in 0..<10_000 {
                if let frame = output.first(where: { $0.answerId == id }) { return frame }
                await Task.yield()
            }
            return nil
        }
    }

    private static func session(_ server: ChatServer, queueing: Bool) -> (WireSession, Sent) {
        let sent = Sent()
        let queueFrame: (@Sendable (WireFrame) -> Void)?
        if queueing {
            queueFrame = { sent.fromQueue($0) }
        } else {
            queueFrame = nil
        }
        let session = WireSession(
            server: server, userId: "alice", deviceId: "phone", queueFrame: queueFrame,
            output: { sent.fromOutput($0) })
        return (session, sent)
    }

    private static func request(_ id: Int, _ request: ChatRequest) throws -> String {
        try WireCodec.encode(.request(id: id, request: request))
    }

    /// Opens the session and creates channel `c` (answered through `output`: nothing runs at
    /// the lock then).
    private static func open(_ session: WireSession, _ sent: Sent) async throws {
        await session.receive(try WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
        await session.receive(try request(1, .createChannel(ChannelDraft(type: .live, channelId: "c", userIds: []))))
        guard case .response? = await sent.outputAnswer(1) else {
            Issue.record("channel c was not created: \(sent.output)")
            return
        }
    }

    /// A session on `server`, opened, channel `c` created, and the lock's combiner role held
    /// by the test (every request sent meanwhile waits for `finishCombining()`).
    private static func openHoldingTheLock(_ server: ChatServer, queueing: Bool) async throws -> (
        WireSession, Sent, RequestCombiner<Result<(result: ServerEngine.Outcome, ticket: Int), ChatError>>
    ) {
        let (session, sent) = Self.session(server, queueing: queueing)
        try await Self.open(session, sent)
        let requests = server.engine.requests
        #expect(requests.tryCombining())
        return (session, sent, requests)
    }

    @Test func requestsQueuedAtTheLockAreAnsweredThroughTheQueueInOrder() async throws {
        let server = ChatServer(clock: ManualClock())
        let (session, sent, requests) = try await Self.openHoldingTheLock(server, queueing: true)
        for id in 10..<15 {
            await session.receive(try Self.request(id, .sendMessage(MessageDraft(channelId: "c", text: "m\(id)"))))
        }
        await session.receive(try Self.request(15, .sendMessage(MessageDraft(channelId: "nowhere", text: "x"))))
        #expect(sent.queued.isEmpty, "nothing runs before the combiner gets to the queue")
        #expect(server.channel("c")?.lastSequence == 0)
        requests.finishCombining()

        let queued = sent.queued
        #expect(queued.map(\.answerId) == [10, 11, 12, 13, 14, 15])
        for (index, frame) in queued.prefix(5).enumerated() {
            guard case .response(_, let envelope) = frame, case .message(let message) = envelope.response else {
                Issue.record("not a message response: \(frame)")
                continue
            }
            #expect(message.text == "m\(10 + index)" && message.sequence == index + 1)
        }
        guard case .failure(15, .notFound)? = queued.last else {
            Issue.record("the refused request's answer: \(String(describing: queued.last))")
            return
        }
        #expect(!sent.output.contains { $0.answerId.map { $0 >= 10 } ?? false }, "no answer went through output too")
        await session.end()
    }

    /// Without `queueFrame`, a request behind a running one gets a task, which waits its turn
    /// and answers through `output`.
    @Test func withoutAQueueEveryRequestGetsATask() async throws {
        let server = ChatServer(clock: ManualClock())
        let (session, sent, requests) = try await Self.openHoldingTheLock(server, queueing: false)
        await session.receive(try Self.request(20, .sendMessage(MessageDraft(channelId: "c", text: "later"))))
        requests.finishCombining()
        guard case .response? = await sent.outputAnswer(20) else {
            Issue.record("no answer: \(sent.output)")
            return
        }
        #expect(sent.queued.isEmpty)
        await session.end()
    }

    /// With a store, a queued request's answer waits until its changes are written: a task
    /// waits for the write, then answers through `output`.
    @Test func aQueuedRequestsAnswerWaitsForTheStore() async throws {
        let server = try await ChatServer(clock: ManualClock(), opening: .database(MemoryDatabase()))
        let (session, sent, requests) = try await Self.openHoldingTheLock(server, queueing: true)
        await session.receive(try Self.request(30, .sendMessage(MessageDraft(channelId: "c", text: "stored"))))
        requests.finishCombining()
        guard case .response(30, let envelope)? = await sent.outputAnswer(30),
            case .message(let message) = envelope.response
        else {
            Issue.record("no answer: \(sent.output)")
            return
        }
        #expect(message.text == "stored")
        #expect(sent.queued.isEmpty)
        await session.end()
    }
}

extension WireFrame {
    /// The request id a response or failure answers.
    fileprivate var answerId: Int? {
        switch self {
        case .response(let id, _), .failure(let id, _): id
        default: nil
        }
    }
}
