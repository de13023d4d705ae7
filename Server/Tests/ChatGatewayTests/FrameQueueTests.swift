@testable import ChatGateway
import ChatAPI
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

/// The gateway's batched writes (``FrameQueue``), on a test channel with NIO's frame encoder:
/// frames queued while the channel cannot take them go out together with one flush, in order;
/// a batch stays near 64 KB; nothing follows a close frame; closing waits for what is queued;
/// a sender waits while too much is queued; a frame that cannot be encoded is left out and
/// reported. Frames are read back with NIO's frame decoder.
@Suite(.timeLimit(.minutes(1))) struct FrameQueueTests {
    /// Counts the flushes on their way to the socket.
    final class FlushCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer
        private let count = NIOLockedValueBox(0)
        var flushes: Int { count.withLockedValue { $0 } }

        func flush(context: ChannelHandlerContext) {
            count.withLockedValue { $0 += 1 }
            context.flush()
        }
    }

    /// A connected test channel with NIO's frame encoder and a flush counter before it, and an
    /// frame queue installed on it; the channel starts not writable when `writable` is false.
    static func frameQueue(
        writable: Bool = true, unencodable: @escaping @Sendable () -> Void = {}
    ) async throws -> (NIOAsyncTestingChannel, FrameQueue<TestFrame>, FlushCounter) {
        let counter = FlushCounter()
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(counter)
        // Made on the channel's loop: NIO's handlers are not `Sendable`.
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        channel.isWritable = writable
        let frameQueue = try #require(await FrameQueue<TestFrame>.install(on: channel, unencodable: unencodable))
        return (channel, frameQueue, counter)
    }

    /// Turns the channel writable and tells the pipeline.
    static func makeWritable(_ channel: NIOAsyncTestingChannel) {
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
    }

    /// The frames written so far, decoded by NIO's frame decoder.
    static func writtenFrames(_ channel: NIOAsyncTestingChannel) async throws -> [WebSocketFrame] {
        let decoder = NIOAsyncTestingChannel()
        try await decoder.testingEventLoop.executeInContext {
            try decoder.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        }
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
            try await decoder.writeInbound(buffer)
        }
        var frames: [WebSocketFrame] = []
        while let frame = try await decoder.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    /// The texts of the frames written so far, once there are `count` of them (bounded).
    static func texts(_ channel: NIOAsyncTestingChannel, count: Int) async throws -> [String] {
        var texts: [String] = []
        for _ in 0..<2_000 where texts.count < count {
            texts += try await writtenFrames(channel).map { frame in
                #expect(frame.opcode == .text && frame.fin)
                return String(buffer: frame.unmaskedData)
            }
            if texts.count < count { await Task.yield() }
        }
        return texts
    }

    @Test func framesQueuedWhileTheChannelIsBusyGoOutTogetherInOrderWithOneFlush() async throws {
        let (channel, frameQueue, counter) = try await Self.frameQueue(writable: false)
        let sent = (0..<10).map { "frame \($0) \"quoted\" 😀" }
        for text in sent { await frameQueue.send(text) }
        #expect(try await Self.writtenFrames(channel).isEmpty, "nothing is written while the channel is not writable")
        Self.makeWritable(channel)
        #expect(try await Self.texts(channel, count: 10) == sent)
        #expect(counter.flushes == 1)

        // An idle frame queue writes a frame at once, alone.
        await frameQueue.send("alone")
        #expect(try await Self.texts(channel, count: 1) == ["alone"])
        #expect(counter.flushes == 2)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aBatchHoldsAboutSixtyFourKilobytes() async throws {
        let (channel, frameQueue, counter) = try await Self.frameQueue(writable: false)
        let sent = (0..<5).map { String(repeating: Character(String($0)), count: 30_000) }
        for text in sent { await frameQueue.send(text) }
        Self.makeWritable(channel)
        #expect(try await Self.texts(channel, count: 5) == sent)
        // 30 + 30 + 30 KB (the third starts below 64 KB), then the other two.
        #expect(counter.flushes == 2)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    /// Batch after batch (each batch's array then holds the next one's queue), every frame goes
    /// out once and in order, a batch cut by its size included.
    @Test func batchAfterBatchEveryFrameGoesOutOnceInOrder() async throws {
        let (channel, frameQueue, counter) = try await Self.frameQueue(writable: false)
        for round in 0..<6 {
            let sent =
                (0..<(round + 3)).map { "round \(round) frame \($0)" }
                + (round == 4 ? [String(repeating: "x", count: 70_000), "after the large one"] : [])
            for text in sent { await frameQueue.send(text) }
            Self.makeWritable(channel)
            #expect(try await Self.texts(channel, count: sent.count) == sent, "round \(round)")
            channel.isWritable = false
        }
        #expect(counter.flushes == 7)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test func noDataFrameFollowsACloseFrame() async throws {
        let (channel, frameQueue, _) = try await Self.frameQueue()
        await frameQueue.send("before")
        #expect(try await Self.texts(channel, count: 1) == ["before"])
        // The library closes (a close frame written past the frame queue's writer).
        var reason = channel.allocator.buffer(capacity: 2)
        reason.write(webSocketErrorCode: .normalClosure)
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: reason))
        await frameQueue.send("after")
        var frames: [WebSocketFrame] = []
        for _ in 0..<100 {
            frames += try await Self.writtenFrames(channel)
            await Task.yield()
        }
        #expect(frames.map(\.opcode) == [.connectionClose])
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test func closingWaitsForTheFramesQueuedBeforeAndTakesNoMore() async throws {
        let (channel, frameQueue, _) = try await Self.frameQueue(writable: false)
        for index in 0..<3 { await frameQueue.send("queued \(index)") }
        let closed = NIOLockedValueBox(false)
        let closing = Task {
            await frameQueue.close()
            closed.withLockedValue { $0 = true }
        }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(!closed.withLockedValue { $0 }, "close() returned with frames still queued")
        Self.makeWritable(channel)
        await closing.value
        await frameQueue.send("after the close")
        #expect(try await Self.texts(channel, count: 3) == ["queued 0", "queued 1", "queued 2"])
        #expect(try await Self.writtenFrames(channel).isEmpty)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aFrameThatCannotBeEncodedIsLeftOutAndReported() async throws {
        let reported = NIOLockedValueBox(0)
        let (channel, frameQueue, counter) = try await Self.frameQueue(writable: false) {
            reported.withLockedValue { $0 += 1 }
        }
        for text in ["first", nil, "third", nil] { await frameQueue.send(text) }
        Self.makeWritable(channel)
        #expect(try await Self.texts(channel, count: 2) == ["first", "third"])
        #expect(counter.flushes == 1)
        #expect(reported.withLockedValue { $0 } == 2)

        // A batch of nothing but such frames writes nothing, and the frame queue goes on.
        await frameQueue.send(nil)
        await frameQueue.send("after")
        #expect(try await Self.texts(channel, count: 1) == ["after"])
        #expect(reported.withLockedValue { $0 } == 3)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aSenderWaitsWhileTooManyFramesAreQueued() async throws {
        let (channel, frameQueue, _) = try await Self.frameQueue(writable: false)
        let done = NIOLockedValueBox(0)
        let sender = Task {
            for index in 0..<(frameQueue.limit + 8) {
                await frameQueue.send("frame \(index)")
                done.withLockedValue { $0 = index + 1 }
            }
        }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(done.withLockedValue { $0 } == frameQueue.limit, "the sender went on past the limit")
        Self.makeWritable(channel)
        await sender.value
        let texts = try await Self.texts(channel, count: frameQueue.limit + 8)
        #expect(texts == (0..<(frameQueue.limit + 8)).map { "frame \($0)" })
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }
}

/// A frame of the tests: a text, encoded as its UTF-8 bytes; `nil` cannot be encoded.
struct TestFrame: QueuedFrame {
    struct Unencodable: Error {}
    var text: String?

    func encode(appendingTo batch: inout WireFrameBatch) throws {
        guard let text else { throw Unencodable() }
        batch.append(encoded: text.utf8)
    }
}

extension FrameQueue<TestFrame> {
    /// Queues `text` as a frame (`nil`: one that cannot be encoded).
    fileprivate func send(_ text: String?) async {
        await send(TestFrame(text: text))
    }
}
