@testable import ChatGateway
import ChatServer
import NIOConcurrencyHelpers
import Testing

/// The gateway's sessions at shutdown: every open one is closed with 1001, and one that arrives
/// once the shutdown began is refused (its connection closes itself with 1001), so none is
/// left open without being told.
@Suite struct SessionRegistryTests {
    @Test func aShutdownClosesEveryOpenSessionAndRefusesLaterOnes() async {
        let server = ChatServer()
        let registry = SessionRegistry()
        let closes = NIOLockedValueBox<[Int]>([])
        func session(_ user: String) -> WireSession {
            WireSession(server: server, userId: user, deviceId: "phone") { output in
                if case .close(let code, _) = output { closes.withLockedValue { $0.append(code) } }
            }
        }
        let first = registry.add(session("alice"))
        let second = registry.add(session("bob"))
        #expect(first != nil && second != nil && first != second)
        await registry.closeAll(code: 1001, reason: "the server is shutting down")
        #expect(closes.withLockedValue { $0 } == [1001, 1001])
        #expect(registry.add(session("carol")) == nil)
    }
}
