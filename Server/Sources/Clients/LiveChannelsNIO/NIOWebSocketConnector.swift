import ChatAPI
import Foundation
import HTTPTypes
import LiveChannels
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import WSClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `WebSocketConnector` on SwiftNIO (the `WSClient` of swift-websocket): the connector for
/// Linux, where URLSession has no WebSockets.
///
/// ```swift
/// let transport = WebSocketTransport(
///     url: URL(string: "ws://127.0.0.1:8080/v1/connect")!, userId: "alice",
///     token: { "dev:alice" }, connector: NIOWebSocketConnector())
/// ```
///
/// The connection pings the server every `WebSocketRequest.pingInterval` and closes when a
/// ping is still unanswered at the next one. `connect` always ends: a handshake not done within
/// `openTimeout` (a server that died with the connection half open, or never answers) fails
/// with `ChatError.unavailable`. WSClient does not expose why an upgrade was
/// refused, so the connector then asks the same URL with a plain `GET` (`chat-server` answers it
/// with the same checks): a 401, 403 or 429 becomes the `ChatError` of its body
/// (`unauthorized`, `forbidden`, `limitExceeded`); anything else is `ChatError.unavailable`.
public struct NIOWebSocketConnector: WebSocketConnector {
    private let eventLoopGroup: any EventLoopGroup
    private let maximumFrameBytes: Int
    private let openTimeout: Duration
    private let logger: Logger

    /// A connector on `eventLoopGroup` (NIO's shared one by default) accepting frames up to
    /// `maximumFrameBytes` from the server, giving up on a handshake after `openTimeout`.
    public init(
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        maximumFrameBytes: Int = 64 << 20, openTimeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "LiveChannelsNIO")
    ) {
        self.eventLoopGroup = eventLoopGroup
        self.maximumFrameBytes = maximumFrameBytes
        self.openTimeout = openTimeout
        self.logger = logger
    }

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        var headers = HTTPFields()
        for (name, value) in request.headers {
            guard let field = HTTPField.Name(name) else {
                throw ChatError.invalidArgument(field: "headers", reason: "'\(name)' is not a header name")
            }
            headers[field] = value
        }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: maximumFrameBytes, additionalHeaders: headers,
            autoPing: .enabled(timePeriod: request.pingInterval))
        let connection = NIOWebSocketConnection()
        let url = request.url.absoluteString
        let (group, maximumFrameBytes, logger) = (eventLoopGroup, maximumFrameBytes, logger)
        let opening = Task {
            do {
                let closeFrame = try await WebSocketClient.connect(
                    url: url, configuration: configuration, eventLoopGroup: group, logger: logger
                ) { inbound, outbound, _ in
                    connection.opened(outbound)
                    for try await message in inbound.messages(maxSize: maximumFrameBytes) {
                        switch message {
                        case .text(let text): connection.received(text)
                        case .binary:
                            try await outbound.close(.unacceptableData, reason: "binary frames are not the protocol")
                        }
                    }
                }
                connection.closed(
                    code: closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) },
                    reason: closeFrame?.reason ?? "")
            } catch {
                connection.failed(error)
            }
        }
        // WSClient can wait for good on a connection closed during the upgrade: bounded here.
        let openTimeout = openTimeout
        let timer = Task {
            try await Task.sleep(for: openTimeout)
            if connection.failOpening(ChatError.unavailable("no WebSocket handshake from \(url) within \(openTimeout)"))
            {
                opening.cancel()
            }
        }
        defer { timer.cancel() }
        do {
            try await connection.waitUntilOpen(url: url)
        } catch {
            // WSClient does not say why an upgrade was refused: ask the same URL without one.
            if let failure = connection.openFailure as? WebSocketClientError, failure == .webSocketUpgradeFailed,
                let refusal = await request.refusal()
            {
                throw refusal
            }
            throw error
        }
        return connection
    }
}
