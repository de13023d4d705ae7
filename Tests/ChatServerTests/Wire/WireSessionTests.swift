import ChatAPI
import ChatServer
import Foundation
import Locking
import Testing

/// The protocol session without a network: what each client frame gets back.
@Suite(.timeLimit(.minutes(1))) struct WireSessionTests {
    /// Records what a session asks its network front to do, and lets a test wait for it.
    final class Output: Sendable {
        private let items = Lock<[WireOutput]>([])
        var all: [WireOutput] { items.withLock { $0 } }
        func append(_ output: WireOutput) { items.withLock { $0.append(output) } }

        /// The frames sent so far, as a client reads them (encoded by `WireCodec`, decoded).
        var frames: [WireFrame] {
            all.compactMap {
                if case .frame(let frame) = $0 {
                    (try? WireCodec.encodeBytes(frame)).flatMap { try? WireCodec.decode(Data($0)) }
                } else {
                    nil
                }
            }
        }

        var close: (code: Int, reason: String)? {
            for case .close(let code, let reason) in all { return (code, reason) }
            return nil
        }

        /// Waits (yielding, bounded) until `condition` holds.
        func wait(until condition: (Output) -> Bool) async -> Bool {
            for _ in 0..<200_000 {
                if condition(self) { return true }
                await Task.yield()
            }
            return condition(self)
        }
    }

    private let server = ChatServer()

    private func session(_ user: String = "alice") -> (WireSession, Output) {
        let output = Output()
        return (WireSession(server: server, userId: user, deviceId: "phone") { output.append($0) }, output)
    }

    private func hello(_ resumeAfter: Int? = nil) throws -> String {
        try WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: resumeAfter))
    }

    @Test func helloIsAnsweredWithWelcome() async throws {
        let (session, output) = session()
        await session.receive(try hello())
        guard case .welcome(1, let result)? = output.frames.first else {
            Issue.record("\(output.all)")
            return
        }
        #expect(result.status == .new && result.currentUser.userId == "alice")
        #expect(server.user("alice") != nil)
    }

    @Test(arguments: [
        #"{"type":"request","id":1,"request":{"getUser":{"userId":"alice"}}}"#, "not json", #"{"protocol":1}"#,
    ])
    func anythingButHelloFirstCloses1002(frame: String) async {
        let (session, output) = session()
        await session.receive(frame)
        #expect(output.close?.code == 1002)
        #expect(output.frames.isEmpty && session.isClosed)
        #expect(server.user("alice") == nil)
    }

    @Test func anotherProtocolVersionCloses4010() async throws {
        let (session, output) = session()
        await session.receive(try WireCodec.encode(.hello(protocolVersion: 2, resumeAfter: nil)))
        #expect(output.close?.code == 4010)
    }

    @Test func requestsAreAnsweredByIdAndABadOneKeepsTheConnection() async throws {
        let (session, output) = session()
        await session.receive(try hello())
        await session.receive(#"{"type":"request","id":7,"request":{"nope":{}}}"#)
        await session.receive(
            try WireCodec.encode(
                .request(id: 8, request: .createChannel(ChannelDraft(type: .community, channelId: "ops")))))
        await session.receive(try WireCodec.encode(.request(id: 9, request: .getChannel(channelId: "missing"))))
        #expect(await output.wait { $0.frames.filter { if case .response = $0 { true } else { false } }.count == 1 })
        #expect(await output.wait { $0.frames.contains { if case .failure(9, _) = $0 { true } else { false } } })
        let frames = output.frames
        #expect(
            frames.contains { if case .failure(7, .invalidArgument(field: "request", _)) = $0 { true } else { false } })
        #expect(
            frames.contains {
                if case .response(8, let envelope) = $0 { envelope.channelValue?.channelId == "ops" } else { false }
            })
        #expect(frames.contains { if case .failure(9, .notFound) = $0 { true } else { false } })
        #expect(output.close == nil && server.channel("ops") != nil)
        // The change's event reaches the device too.
        #expect(
            await output.wait { $0.frames.contains { if case .event(let e) = $0 { e.sequence == 1 } else { false } } })
    }

    /// A request that waits (here a fault's delay) holds up none of the connection's later
    /// requests; those with nothing to wait for are answered meanwhile, and the waiting one once
    /// its wait ends.
    @Test func aRequestThatWaitsHoldsUpNoneOfTheOthers() async throws {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        let output = Output()
        let session = WireSession(server: server, userId: "alice", deviceId: "phone") { output.append($0) }
        await session.receive(try hello())
        server.faults.delayNext(1, by: 60, userId: "alice")
        await session.receive(
            try WireCodec.encode(
                .request(id: 1, request: .createChannel(ChannelDraft(type: .community, channelId: "slow")))))
        await clock.waitForSleepers(1)
        for id in 2...4 {
            await session.receive(
                try WireCodec.encode(
                    .request(id: id, request: .createChannel(ChannelDraft(type: .community, channelId: "c\(id)")))))
        }
        func answered(_ id: Int) -> Bool {
            output.frames.contains { if case .response(id, _) = $0 { true } else { false } }
        }
        #expect(await output.wait { _ in (2...4).allSatisfy(answered) })
        #expect(!answered(1) && server.channel("slow") == nil)
        clock.advance(by: 60)
        #expect(await output.wait { _ in answered(1) })
        #expect(server.channel("slow") != nil)
    }

    @Test(arguments: [
        #"{"type":"request","id":-1,"request":{"getUser":{"userId":"a"}}}"#,
        #"{"type":"request","id":"x","request":{"getUser":{"userId":"a"}}}"#,
        #"{"type":"hello","protocol":1}"#, #"{"type":"welcome","protocol":1}"#, "[]",
    ])
    func aBadIdOrAServerFrameCloses1002(frame: String) async throws {
        let (session, output) = session()
        await session.receive(try hello())
        await session.receive(frame)
        #expect(output.close?.code == 1002)
        #expect(session.isClosed)
        // The device is disconnected from the server: it no longer reads.
        #expect(server.lastEventSequence(userId: "alice", deviceId: "phone") == 0)
    }

    @Test func aBinaryFrameCloses1003() async throws {
        let (session, output) = session()
        await session.receive(try hello())
        await session.receiveBinary()
        #expect(output.close?.code == 1003)
    }

    @Test func aFailedConnectClosesAndADropCloses1011() async throws {
        server.faults.failNextConnects(1, userId: "alice", deviceId: "phone")
        let (first, failed) = session()
        await first.receive(try hello())
        #expect(failed.close?.code == 1008 && failed.frames.isEmpty)

        let (second, output) = session()
        await second.receive(try hello())
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        #expect(await output.wait { $0.close != nil })
        #expect(output.close?.code == 1011)
    }

    /// A network front ends the session as soon as it sees it closed (a frame arriving then), and
    /// closes the socket itself once `end()` returns: `end()` waits for the session's close frame
    /// being written, so the front's own close (1000) never overtakes the session's code (a
    /// client told 1000 takes the end as its own and never reconnects).
    @Test func endWaitsForTheCloseFrameBeingWritten() async throws {
        let written = Output()
        let gate = Lock<CheckedContinuation<Void, Never>?>(nil)
        let session = WireSession(server: server, userId: "alice", deviceId: "phone") { output in
            if case .close = output {
                await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
            }
            written.append(output)
        }
        await session.receive(try hello())
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        var turns = 0
        while gate.withLock({ $0 }) == nil {
            turns += 1
            try #require(turns < 100_000, "the session never started its close")
            await Task.yield()
        }
        #expect(session.isClosed)
        let ended = Lock(false)
        let end = Task {
            await session.end()
            ended.withLock { $0 = true }
        }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(!ended.withLock { $0 }, "end() returned while the close frame was still being written")
        gate.withLock { $0 }?.resume()
        await end.value
        #expect(written.close?.code == 1011)
    }

    /// Events are read on demand (no task waits for them), so nothing but the session holds its
    /// device's connection: a session let go without `end()` disconnects the device all the same.
    @Test func aSessionLetGoDisconnectsItsDevice() async throws {
        var (session, output): (WireSession?, Output) = session()
        await session?.receive(try hello())
        #expect(output.frames.count == 1)
        #expect(server.user("alice")?.isOnline == true)
        session = nil
        #expect(server.user("alice")?.isOnline == false, "the device stayed connected after its session was let go")
    }

    /// Events arrive burst after burst, each written once and in order, with no task waiting
    /// between the bursts.
    @Test func eventsComeInOrderAcrossBursts() async throws {
        let (session, output) = session()
        await session.receive(try hello())
        _ = try await server.createChannel(type: .community, channelId: "c", userIds: ["alice", "bob"])
        let bob = server.connection(userId: "bob")
        _ = try await bob.connect(resumingAfter: nil)
        for burst in 0..<20 {
            for index in 0..<(burst % 4 + 1) {
                _ = try await bob.send(.sendMessage(MessageDraft(channelId: "c", text: "\(burst).\(index)")))
            }
            await Task.yield()
        }
        let expected = (0..<20).flatMap { burst in (0..<(burst % 4 + 1)).map { "\(burst).\($0)" } }
        func texts(_ output: Output) -> [String] {
            output.frames.compactMap { frame in
                guard case .event(let envelope) = frame, case .messageNew(let message, _) = envelope.event else {
                    return nil
                }
                return message.text
            }
        }
        #expect(await output.wait { texts($0).count >= expected.count })
        #expect(texts(output) == expected)
        let sequences = output.frames.compactMap {
            if case .event(let envelope) = $0 { envelope.sequence } else { nil }
        }
        #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
    }

    @Test func aSecondConnectionOfTheDeviceCloses4003OnTheFirst() async throws {
        let (first, output) = session()
        await first.receive(try hello())
        let (second, _) = session()
        await second.receive(try hello())
        #expect(await output.wait { $0.close != nil })
        #expect(output.close?.code == 4003)
    }
}
