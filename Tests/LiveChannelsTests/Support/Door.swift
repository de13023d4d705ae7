import ChatAPI
import ChatServer
import Foundation
import LiveChannels

/// The two doors into one server: the embedded transport, and the wire protocol through a
/// `WebSocketTransport` (in memory, see ``InMemoryWireConnector``). Scenarios that matter run
/// through both; `LIVECHANNELS_DOOR=wire` runs every `ChatFixture` test through the wire.
enum Door: String, CaseIterable, Sendable, CustomStringConvertible {
    case embedded
    case wire

    /// The door of `ChatFixture`s that do not name one: `LIVECHANNELS_DOOR`, or embedded.
    static let current =
        ProcessInfo.processInfo.environment["LIVECHANNELS_DOOR"].flatMap(Door.init(rawValue:)) ?? .embedded

    var description: String { rawValue }

    /// A transport for `userId` on `deviceId` through this door.
    func transport(_ server: ChatServer, userId: String, deviceId: String) -> any ChatTransport {
        switch self {
        case .embedded:
            server.connection(userId: userId, deviceId: deviceId)
        case .wire:
            WebSocketTransport(
                url: URL(string: "ws://in-memory/v1/connect")!, userId: userId, deviceId: deviceId,
                token: { "dev:\(userId)" }, connector: InMemoryWireConnector(server: server))
        }
    }
}
