import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveCore
import TestSupport
import Testing

/// Random sends, edits and deletions by three clients while every client's live list is
/// observed and paged backwards: each delivered change applies cleanly to the previous snapshot,
/// and once synchronized each list equals the server's messages over its loaded window.
@Suite(.timeLimit(.minutes(2))) struct MessageListPropertyTests {
    let fixture = ChatFixture()

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func liveListsFollowTheServer(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        let users = ["alice", "bob", "carol"]
        var clients: [ChatClient] = []
        for user in users { clients.append(try await fixture.client(user)) }
        try await fixture.server.createChannel(type: .community, channelId: "c1", userIds: users)
        for index in 0..<25 {
            try await fixture.server.sendMessage(as: users[index % 3], channelId: "c1", text: "seed \(index)")
        }

        let failures = Recorder<String>()
        var lists: [LiveCollection<Message>] = []
        var tokens: [NotificationToken] = []
        for client in clients {
            let list = await MessageRepository(client: client).getMessages(channelId: "c1", pageSize: 7).loaded()
            let previous = Recorder<[Message]>()
            previous.append(list.snapshots)
            tokens.append(
                list.observe(on: .synchronous) { collection, change, _ in
                    let after = collection.snapshots
                    if let change, let before = previous.last {
                        if !change.isValid(oldCount: before.count, newCount: after.count)
                            || change.applying(to: before, new: after) != after
                        {
                            failures.append(
                                "seed \(seed): \(change) does not lead from \(before.count) to \(after.count)")
                        }
                    }
                    previous.append(after)
                })
            lists.append(list)
        }
        defer { tokens.forEach { $0.invalidate() } }

        for _ in 0..<60 {
            let actor = Int.random(in: 0..<3, using: &generator)
            let repository = MessageRepository(client: clients[actor])
            let existing = fixture.server.messages(channelId: "c1")
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let mentioned = users.filter { _ in Bool.random(using: &generator) }
                try await repository.sendMessage(channelId: "c1", text: "hi", mentionedUserIds: mentioned)
            case 5..<7:
                let target = existing.randomElement(using: &generator)!
                _ = try? await repository.editMessage(
                    channelId: "c1", messageId: target.messageId,
                    text: "edit \(Int.random(in: 0..<100, using: &generator))")
            case 7..<8:
                let target = existing.randomElement(using: &generator)!
                _ = try? await repository.deleteMessage(channelId: "c1", messageId: target.messageId)
            default:
                let list = lists[Int.random(in: 0..<3, using: &generator)]
                list.previousPage()
            }
        }
        for (client, list) in zip(clients, lists) {
            await client.synchronize()
            await list.loaded()
            await client.synchronize()
            let server = fixture.server.messages(channelId: "c1")
            let start = list.snapshots.first?.sequence ?? 1
            #expect(list.snapshots == Array(server[(start - 1)...]), "seed \(seed), \(client.currentUserId)")
            #expect(list.hasPrevious == (start > 1))
        }
        #expect(failures.values.isEmpty, "\(failures.values)")
    }
}
