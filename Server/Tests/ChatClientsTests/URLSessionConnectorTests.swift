import ChatAPI
import Foundation
import LiveChannels
import Testing
import ServerTestSupport

/// The default connector, URLSession's WebSocket task, against a real gateway: on Apple
/// platforms it signs in; on Linux, whose libcurl has no WebSockets, it fails at once with a
/// clear `ChatError.unavailable` — never a hang or a crash.
@Suite(.timeLimit(.minutes(1))) struct URLSessionConnectorTests {
    @Test func theDefaultConnectorConnectsOrSaysWhyNot() async throws {
        try await GatewayHarness.run { harness in
            let transport = WebSocketTransport(url: harness.url, userId: "alice", token: { "dev:alice" })
            do {
                let result = try await transport.connect(resumingAfter: nil)
                #expect(result.currentUser.userId == "alice")
                await transport.disconnect()
            } catch let error as ChatError {
                #if os(Linux)
                    guard case .unavailable(let reason) = error else {
                        Issue.record("\(error)")
                        return
                    }
                    #expect(reason.contains("WebSocket"))
                #else
                    Issue.record("\(error)")
                #endif
            }
        }
    }
}
