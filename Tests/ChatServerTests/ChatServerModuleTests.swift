import ChatServer
import Testing

// Placeholder until the module's issue lands: the module links into a test target.
@Suite struct ChatServerModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: ChatServerModuleTests.self).hasPrefix("ChatServer"))
    }
}
