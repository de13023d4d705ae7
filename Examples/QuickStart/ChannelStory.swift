import Foundation
import ChatServer
import LiveChannels

/// Part 2 of the tour: the seed's story, told with two users on the embedded server.
enum ChannelStory {
    static func run() async throws {
        print("── Part 2: Alice and Bob on the embedded server ──")
        let server = ChatServer()
        let alice = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "laptop"))
        try await alice.connect()
        try await bob.connect()
        print("Alice and Bob are connected.")

        // Alice creates a community channel with a builder, Amity style, and observes it.
        let channels = ChannelRepository(client: alice)
        let builder = CommunityChannelBuilder()
        builder.setId("ops")
        builder.setUserIds(["bob"])
        builder.setDisplayName("Ops")
        builder.setTags(["ch-comm", "ios-sdk"])
        builder.setMetadata(["sdk_type": "ios"])
        let opsObject = channels.createChannel().community(with: builder)
        // Each observer prints a line only when what it shows changed (a new message changes the
        // channel's last message time, which these lines do not show).
        let aliceLine = PrintedLine()
        let opsToken = opsObject.observe(on: .synchronous) { object, error in
            guard let channel = object.snapshot else { return }
            let members = channel.memberCount == 1 ? "1 member" : "\(channel.memberCount) members"
            aliceLine.print("  [Alice's ops] \(channel.displayName ?? "?"), \(members), unread \(channel.unreadCount)")
        }
        _ = await opsObject.values.first { $0 != nil }

        // Bob watches the channels he is a member of.
        let bobsChannels = ChannelRepository(client: bob)
        let mine = bobsChannels.getChannels().communityType(
            with: CommunityChannelQueryBuilder(filter: .userIsMember)
        ).query()
        let bobLine = PrintedLine()
        let listToken = mine.observe(on: .synchronous) { collection, change, _ in
            if let change, change.isEmpty { return }  // a status-only update (page loading)
            let names = collection.snapshots.map { "\($0.displayName ?? $0.channelId)(\($0.unreadCount))" }
            bobLine.print("  [Bob's channels] \(names)", then: change.map { " after \($0)" } ?? " (first)")
        }
        for await update in mine.updates where update.loadingStatus == .loaded { break }

        // Alice renames the channel and sets metadata; Bob sees it live.
        let updater = ChannelUpdateBuilder(channelId: "ops", client: alice)
        updater.setDisplayName("Ops Room")
        updater.setMetadata(["sdk_type": "ios", "topic": "deploys"])
        _ = try await channels.updateChannel(with: updater)
        await bob.synchronize()
        print("Alice renamed the channel; Bob's list already shows it.")

        // Unread counts rise as Alice posts and fall to zero as Bob reads.
        let bobsTotal = bobsChannels.getTotalUnreadCount()
        let totalToken = bobsTotal.observe(on: .synchronous) { object, _ in
            print("  [Bob's total unread] \(object.snapshot ?? 0)")
        }
        let messages = MessageRepository(client: alice)
        for text in ["Deploy at 5?", "Going ahead.", "Done 🎉"] {
            _ = try await messages.sendMessage(channelId: "ops", text: text, mentionedUserIds: [])
        }
        await bob.synchronize()
        print("Alice posted 3 messages: Bob has \(bobsChannels.totalUnreadCount) unread.")

        let participation = ChannelParticipation(client: bob, channelId: "ops")
        try await participation.startReading()
        await bob.synchronize()
        print("Bob opened the channel: \(bobsChannels.totalUnreadCount) unread.")
        _ = try await messages.sendMessage(channelId: "ops", text: "Thanks Bob!", mentionedUserIds: ["bob"])
        await bob.synchronize()
        print("While Bob reads, new messages stay read: \(bobsChannels.totalUnreadCount) unread.")
        try await participation.stopReading()

        // Membership: Bob leaves; the channel leaves his member-only list.
        try await bobsChannels.leaveChannel("ops")
        await alice.synchronize()  // Alice's object shows one member before her token goes
        print("Bob left: his list now has \(mine.count) channels.")

        // Tokens: invalidate and nothing more is delivered.
        opsToken.invalidate()
        listToken.invalidate()
        totalToken.invalidate()
        updater.setDisplayName("Ops (archived)")
        _ = try await channels.updateChannel(with: updater)
        print("Tokens invalidated: the last rename printed nothing.")

        await alice.disconnect()
        await bob.disconnect()
        print("Goodbye.")
    }
}

/// A line an observer prints, printed again only when it reads differently.
final class PrintedLine: @unchecked Sendable {
    /// Guards `last` (observers may be called on any thread).
    private let lock = NSLock()
    private var last: String?

    /// Prints `line` (followed by `suffix`) unless `line` is what was printed last.
    func print(_ line: String, then suffix: String = "") {
        lock.lock()
        let isNew = last != line
        last = line
        lock.unlock()
        if isNew { Swift.print(line + suffix) }
    }
}
