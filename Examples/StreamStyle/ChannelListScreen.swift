import ChatServer
import Foundation
import LiveChannels

/// Seed 000: a channel list controller with a delegate, kept in sync as channels start and
/// stop matching the query.
@MainActor
final class ChannelListScreen: ChatChannelListControllerDelegate {
    let client: ChatClient
    let other: ChatClient
    let server: ChatServer
    let waiter = Waiter()
    var controller: ChatChannelListController?

    init(client: ChatClient, other: ChatClient, server: ChatServer) {
        self.client = client
        self.other = other
        self.server = server
    }

    func run() async throws {
        // 1. A query matching channels whose members contain the current user…
        let query = ChannelListQuery(
            filter: .containMembers(userIds: [client.currentUserId]),
            sort: [Sorting(key: .lastMessageAt, isAscending: false)])
        // 2. …a controller (with a filter block on top, as in the seed)…
        let controller = client.channelListController(
            query: query,
            filter: { channel in
                channel.currentUserMembership == .member
            })
        self.controller = controller
        // 3. …its delegate…
        controller.delegate = self
        // 4. …and synchronize.
        try await controller.synchronize()
        print("synchronized:", controller.channels.map(\.channelId))

        // Another user creates a channel with us, then writes in it: it enters, then moves up.
        let builder = CommunityChannelBuilder()
        builder.setId("general")
        builder.setDisplayName("General")
        builder.setUserIds([client.currentUserId])
        _ = try await ChannelRepository(client: other).createChannel(with: builder)
        try await server.createChannel(
            type: .community, channelId: "random", displayName: "Random", userIds: ["alice", "bob"])
        await waiter.until { controller.channels.count == 2 }
        try await MessageRepository(client: other).sendMessage(
            channelId: "general", text: "hello", mentionedUserIds: [])
        await waiter.until { controller.channels.first?.channelId == "general" }
        print("now:", controller.channels.map(\.channelId), "all loaded:", controller.hasLoadedAllChannels)
    }

    func controller(_ controller: any DataController, didChangeState state: DataControllerState) {
        print("  state →", state)
    }

    func controllerWillChangeChannels(_ controller: ChatChannelListController) {
        print("  will change (\(controller.channels.count) channels)")
    }

    func controller(_ controller: ChatChannelListController, didChangeChannels changes: [ListChange<Channel>]) {
        for change in changes {
            switch change {
            case .insert(let channel, let index): print("  insert", channel.channelId, "at row", index[1])
            case .move(let channel, let from, let to): print("  move", channel.channelId, "from", from[1], "to", to[1])
            case .update(let channel, let index): print("  update", channel.channelId, "at row", index[1])
            case .remove(let channel, let index): print("  remove", channel.channelId, "from row", index[1])
            }
        }
        waiter.check()
    }
}
