import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import NIOCore
import NIOPosix
import Testing

/// `NIOWebSocketConnector.connect` ends — with a connection or a `ChatError` — whatever the
/// other end does during the handshake: a server that dies with the connection half open, or
/// one that accepts and never answers.
@Suite(.timeLimit(.minutes(1))) struct ConnectorLivenessTests {
    /// Accepts TCP connections on 127.0.0.1 and does what `behaviour` says with each.
    final class RawServer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        enum Behaviour { case closeAtOnce, closeAfterRequest, neverAnswer }
        let behaviour: Behaviour
        init(_ behaviour: Behaviour) { self.behaviour = behaviour }

        func channelActive(context: ChannelHandlerContext) {
            if behaviour == .closeAtOnce { context.close(promise: nil) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if behaviour == .closeAfterRequest { context.close(promise: nil) }
        }

        static func start(_ behaviour: Behaviour) async throws -> (any NIOCore.Channel, Int) {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { $0.pipeline.addHandler(RawServer(behaviour)) }
                .bind(host: "127.0.0.1", port: 0).get()
            return (channel, channel.localAddress!.port!)
        }
    }

    @Test(arguments: [RawServer.Behaviour.closeAtOnce, .closeAfterRequest, .neverAnswer])
    func connectEndsWhateverTheServerDoesDuringTheHandshake(behaviour: RawServer.Behaviour) async throws {
        let (server, port) = try await RawServer.start(behaviour)
        defer { server.close(promise: nil) }
        let started = ContinuousClock.now
        do {
            _ = try await NIOWebSocketConnector().connect(
                WebSocketRequest(url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!))
            Issue.record("connected to a server that never upgraded")
        } catch ChatError.unavailable {
        }
        #expect(ContinuousClock.now - started < .seconds(30), "\(behaviour)")
    }
}
