import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

/// The update builder checks metadata with the server's rule: one error case per cause,
/// creating and updating alike, and no crash on hostile input.
@Suite(.timeLimit(.minutes(1))) struct ChannelUpdateBuilderTests {
    let fixture = ChatFixture()

    @Test func oversizedMetadataIsLimitExceededAsOnCreate() async throws {
        let alice = try await fixture.client("alice")
        let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
        updater.setMetadata(["big": .string(String(repeating: "x", count: JSON.maximumMetadataBytes))])
        #expect(throws: ChatError.self) { try updater.makeChanges() }
        do {
            _ = try updater.makeChanges()
        } catch let error as ChatError {
            guard case .limitExceeded = error else {
                Issue.record("expected limitExceeded, got \(error)")
                return
            }
        }
        let builder = CommunityChannelBuilder()
        builder.setMetadata(["big": .string(String(repeating: "x", count: JSON.maximumMetadataBytes))])
        #expect {
            _ = try builder.makeDraft()
        } throws: { error in
            if case .limitExceeded? = error as? ChatError { true } else { false }
        }
    }

    @Test func deepOrNonFiniteMetadataIsInvalidArgument() async throws {
        let alice = try await fixture.client("alice")
        var deep: JSON = 1
        for _ in 0..<3_000 { deep = [deep] }
        for metadata: [String: JSON] in [["deep": deep], ["n": .number(.nan)], ["n": [.number(-.infinity)]]] {
            let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
            updater.setMetadata(metadata)
            #expect {
                _ = try updater.makeChanges()
            } throws: { error in
                if case .invalidArgument(field: "metadata", _)? = error as? ChatError { true } else { false }
            }
            let builder = CommunityChannelBuilder()
            builder.setMetadata(metadata)
            #expect {
                _ = try builder.makeDraft()
            } throws: { error in
                if case .invalidArgument(field: "metadata", _)? = error as? ChatError { true } else { false }
            }
        }
    }
}
