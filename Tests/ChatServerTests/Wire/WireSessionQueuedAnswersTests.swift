import ChatAPI
import Foundation
import Locking
import Testing

@testable import ChatServer

/// A session whose network front can queue a frame without waiting (`queueFrame`): every answer
/// is queued from the thread that has it — the reader's for a request done at once, the thread
/// running the lock's queue for a request queued behind another (no task either way), a task's
/// for one that had to wait. The test holds the lock's combiner role itself, so that every
/// request it sends meanwhile is queued.
@Suite(.timeLimit(.minutes(1))) struct WireSessionQueuedAnswersTests {
    /// What the session sent, through `output` and through `queueFrame`, in order of each.
    final class Sent: Sendable {
        /// Frames sent each way, and how many more `queueFrame` takes (`nil`: any number).
        private let state = Lock((output: [WireFrame](), queued: [WireFrame](), room: Int?.none))
        var output: [WireFrame] { state.withLock { $0.output } }
        var queued: [WireFrame] { state.withLock { $0.queued } }
        /// The answers among the frames queued.
        var queuedAnswers: [WireFrame] { queued.filter { $0.answerId != nil } }

        init(room: Int? = nil) { state.withLock { $0.room = room } }

        func fromOutput(_ output: WireOutput) {
            if case .frame(let frame) = output { state.withLock { $0.output.append(frame) } }
        }
        func fromQueue(_ frame: WireFrame) -> Bool {
            state.withLock { state in
                if let room = state.room {
                    guard room > 0 else { return false }
                    state.room = room - 1
                }
                state.queued.append(frame)
                return true
            }
        }

        /// Waits (bounded) until `output` holds an answer to request `id`.
        func outputAnswer(_ id: Int) async -> WireFrame? {
            await answer(id, in: { $0.output })
        }

        /// Waits (bounded) until the queue holds an answer to request `id`.
        func queuedAnswer(_ id: Int) async -> WireFrame? {
            await answer(id, in: { $0.queued })
        }

        /// Waits (bounded) until either way holds an answer to request `id`.
        func anyAnswer(_ id: Int) async -> WireFrame? {
            await answer(id, in: { $0.output + $0.queued })
        }

        private func answer(_ id: Int, in frames: (Sent) -> [WireFrame]) async -> WireFrame? {
            for _ in 0..<10_000 {
                if let frame = frames(self).first(where: { $0.answerId == id }) { return frame }
                await Task.yield()
            }
            return nil
        }
    }

    private static func session(_ server: ChatServer, queueing: Bool, room: Int? = nil) -> (WireSession, Sent) {
        let sent = Sent(room: room)
        let queueFrame: (@Sendable (WireFrame) -> Bool)?
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

    /// Opens the session and creates channel `c` (done at once: nothing runs at the lock then).
    private static func open(_ session: WireSession, _ sent: Sent) async throws {
        await session.receive(try WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
        await session.receive(try request(1, .createChannel(ChannelDraft(type: .live, channelId: "c", userIds: []))))
        guard case .response? = await sent.anyAnswer(1) else {
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
        #expect(!sent.queuedAnswers.contains { $0.answerId! >= 10 }, "nothing runs before the combiner gets to it")
        #expect(server.channel("c")?.lastSequence == 0)
        requests.finishCombining()

        let queued = sent.queuedAnswers.filter { $0.answerId! >= 10 }
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
        #expect(sent.queuedAnswers.isEmpty)
        await session.end()
    }

    /// With a store, a queued request's answer waits until its changes are written: a task
    /// waits for the write, then queues the answer.
    @Test func aQueuedRequestsAnswerWaitsForTheStore() async throws {
        let database = MemoryDatabase()
        let server = try await ChatServer(clock: ManualClock(), opening: .database(database))
        let (session, sent, requests) = try await Self.openHoldingTheLock(server, queueing: true)
        await session.receive(try Self.request(30, .sendMessage(MessageDraft(channelId: "c", text: "stored"))))
        requests.finishCombining()
        guard case .response(30, let envelope)? = await sent.queuedAnswer(30),
            case .message(let message) = envelope.response
        else {
            Issue.record("no answer: \(sent.queued)")
            return
        }
        #expect(message.text == "stored")
        // Answered only once written: a server reopened on the database has the message.
        await server.close()
        let reopened = try await ChatServer(clock: ManualClock(), opening: .database(database))
        #expect(reopened.channel("c")?.lastSequence == 1)
        await reopened.close()
        await session.end()
    }
}

extension WireSessionQueuedAnswersTests {
    /// The device's events (and the answers) are queued from the thread that has them while the
    /// front has room: each event once, in order; once it has none, the rest go through
    /// `output`, still in order (queued ones first), and nothing is lost.
    @Test(arguments: [nil, 0, 3] as [Int?])
    func eventsGoThroughTheQueueWhileItHasRoomThenThroughOutputInOrder(room: Int?) async throws {
        let server = ChatServer(clock: ManualClock())
        let (session, sent) = Self.session(server, queueing: true, room: room)
        try await Self.open(session, sent)
        for id in 2..<7 {
            await session.receive(try Self.request(id, .sendMessage(MessageDraft(channelId: "c", text: "m\(id)"))))
            _ = await sent.anyAnswer(id)
        }
        let last = server.lastEventSequence(userId: "alice", deviceId: "phone")
        func sequences(_ frames: [WireFrame]) -> [Int] {
            frames.compactMap { if case .event(let envelope) = $0 { envelope.sequence } else { nil } }
        }
        for _ in 0..<10_000 where sequences(sent.queued).count + sequences(sent.output).count < last {
            await Task.yield()
        }
        let queued = sequences(sent.queued)
        let output = sequences(sent.output)
        #expect(queued + output == Array(1...last), "queued \(queued), output \(output)")
        // Answers and events share the room: it is used up before anything goes through output.
        if let room {
            #expect(sent.queued.count == room)
        } else {
            #expect(
                output.isEmpty && !sent.output.contains { $0.answerId != nil }, "only the welcome went through output")
        }
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
