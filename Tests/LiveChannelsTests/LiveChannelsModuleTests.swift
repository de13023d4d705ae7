import LiveChannels
import Testing

// Placeholder until the module's issue lands: the module links into a test target.
@Suite struct LiveChannelsModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: LiveChannelsModuleTests.self).hasPrefix("LiveChannels"))
    }
}
