import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Synchronization

/// The floors of the stack: a bare Hummingbird WebSocket server with no protocol, no rules and
/// no JSON — what any chat server on this stack pays at least.
///
/// - `/broadcast` sends every text frame it receives to every connection: the floor of a
///   fan-out.
/// - `/echo` answers every text frame to its sender alone, written as the library writes it:
///   the floor of a request and its answer.
final class FloorServer: Sendable {
    private let connections = NIOLockedValueBox<[Int: WebSocketOutboundWriter]>([:])
    private let next = Atomic<Int>(0)

    func services(onRunning: @escaping @Sendable (Int) async -> Void) -> [any Service] {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let floor = self
        router.ws("/broadcast") { inbound, outbound, _ in
            let key = floor.next.wrappingAdd(1, ordering: .relaxed).oldValue
            floor.connections.withLockedValue { $0[key] = outbound }
            defer { _ = floor.connections.withLockedValue { $0.removeValue(forKey: key) } }
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                let everyone = floor.connections.withLockedValue { Array($0.values) }
                for connection in everyone { try? await connection.write(.text(text)) }
            }
        }
        router.ws("/echo") { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                try await outbound.write(.text(text))
            }
        }
        var logger = Logger(label: "floor")
        logger.logLevel = .critical
        let app = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(
                webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 20))),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        return [app]
    }
}
