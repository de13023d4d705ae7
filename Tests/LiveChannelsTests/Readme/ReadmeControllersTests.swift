import ChatServer
import LiveChannels
import Testing

/// The README's "Stream-style controllers" block, as written.
@Suite(.timeLimit(.minutes(1))) struct ReadmeControllersTests {
    @Test func bothStylesRun() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "alice", displayName: "Alice")
        try await server.registerUser(id: "bob", displayName: "Bob")
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await client.connect()
        try await server.createChannel(type: .community, channelId: "ops", displayName: "Ops", userIds: ["alice", "bob"])
        let query = ChannelListQuery(filter: .containMembers(userIds: ["alice"]))

        // Amity style: a live collection and an observer.
        let list = ChannelRepository(client: client).getChannels(query: query)
        let token = list.observe { collection, change, error in
            print(collection.snapshots.map(\.channelId), change?.insertions ?? [])
        }

        // Stream style: a controller and a delegate (main actor).
        @MainActor final class Inbox: ChatChannelListControllerDelegate {
            func controller(_ controller: ChatChannelListController, didChangeChannels changes: [ListChange<Channel>]) {
                for change in changes { print(change.indexPath, change.item.channelId) }
            }
        }
        @MainActor func streamStyle(_ client: ChatClient) async throws {
            let inbox = Inbox()
            let controller = client.channelListController(query: query)
            controller.delegate = inbox
            try await controller.synchronize()        // controller.channels now shows "ops"
            let ops = client.channelController(for: "ops")
            try await ops.synchronize()
            let id = try await withCheckedThrowingContinuation { continuation in
                ops.createNewMessage(text: "hi") { continuation.resume(with: $0) }
            }
            print(id, ops.messages.first?.text ?? "")  // newest first
            let dm = try client.channelController(createDirectMessageChannelWith: ["bob"], name: nil, imageURL: nil, extraData: [:])
            try await dm.synchronize()                // creates the conversation, or opens it
        }
        try await streamStyle(client)
        token.invalidate()
        #expect(server.messages(channelId: "ops").last?.text == "hi")
    }
}
