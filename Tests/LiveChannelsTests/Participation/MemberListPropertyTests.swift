import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

/// Random joins, leaves, additions, removals, bans, mutes and role changes by several clients:
/// every change delivered to an observer applies cleanly to the snapshot it saw before, and
/// after `synchronize()` every live member list equals the server's answer to its query.
@Suite(.timeLimit(.minutes(3))) struct MemberListPropertyTests {
    let fixture = ChatFixture()

    /// Checks every delivered change of `list` against the previous snapshot.
    final class ChangeChecker {
        let failures = Recorder<String>()
        private let previous = Recorder<[ChannelMember]>()
        private let token: NotificationToken

        init(_ list: LiveCollection<ChannelMember>, name: String) {
            previous.append(list.snapshots)
            let failures = failures
            let previous = previous
            token = list.observe(on: .synchronous) { collection, change, _ in
                guard let change, let before = previous.last else { return }
                let after = collection.snapshots
                if !change.isValid(oldCount: before.count, newCount: after.count)
                    || change.applying(to: before, new: after) != after
                {
                    failures.append(
                        "\(name): \(change) does not lead from \(before.map(\.userId)) to \(after.map(\.userId))")
                }
                previous.append(after)
            }
        }

        func invalidate() { token.invalidate() }
    }

    @Test(arguments: [UInt64(3), 17, 42])
    func liveListsFollowRandomMembershipChanges(seed: UInt64) async throws {
        let users = ["u1", "u2", "u3", "u4", "u5"]
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        var clients: [String: ChatClient] = [:]
        for user in users { clients[user] = try await fixture.client(user) }
        try await makeClub("club", by: alice, members: ["bob"])

        let queries: [(ChatClient, MemberListQuery)] = [alice, bob].flatMap { observer in
            [
                (observer, MemberListQuery(channelId: "club", filter: .all, sortBy: .firstCreated, pageSize: 100)),
                (observer, MemberListQuery(channelId: "club", filter: .all, sortBy: .lastCreated, pageSize: 100)),
                (observer, MemberListQuery(channelId: "club", filter: .mute, pageSize: 100)),
                (observer, MemberListQuery(channelId: "club", filter: .ban, sortBy: .lastCreated, pageSize: 100)),
                (
                    observer,
                    MemberListQuery(channelId: "club", filter: .all, roles: ["vip", "moderator"], pageSize: 100)
                ),
            ]
        }
        var lists: [LiveCollection<ChannelMember>] = []
        var checkers: [ChangeChecker] = []
        for (index, (observer, query)) in queries.enumerated() {
            let list = await ChannelParticipation(client: observer, channelId: "club").getMembers(
                filter: query.filter, sortBy: query.sortBy, roles: query.roles, pageSize: query.pageSize
            ).loaded()
            lists.append(list)
            checkers.append(ChangeChecker(list, name: "list \(index) \(query.filter) \(query.sortBy) \(query.roles)"))
        }

        var generator = SeededGenerator(seed: seed)
        let moderation = ChannelModeration(client: alice, channelId: "club")
        let participation = ChannelParticipation(client: alice, channelId: "club")
        for step in 0..<120 {
            let user = users.randomElement(using: &generator)!
            let repository = ChannelRepository(client: clients[user]!)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: _ = try? await repository.joinChannel(channelId: "club")
            case 1: try? await repository.leaveChannel("club")
            case 2: _ = try? await participation.addMembers([user])
            case 3: _ = try? await participation.removeMembers([user])
            case 4: _ = try? await moderation.banMembers([user])
            case 5: _ = try? await moderation.unbanMembers([user])
            case 6: _ = try? await moderation.muteMembers([user], mutePeriod: -1)
            case 7: _ = try? await moderation.unmuteMembers([user])
            case 8:
                _ = try? await moderation.addRole(Bool.random(using: &generator) ? "vip" : "moderator", userIds: [user])
            default:
                _ = try? await moderation.removeRole(
                    Bool.random(using: &generator) ? "vip" : "moderator", userIds: [user])
            }
            if step % 20 == 19 {
                try await expectListsMatchServer(lists, queries, seed: seed, step: step)
            }
        }
        try await expectListsMatchServer(lists, queries, seed: seed, step: 120)
        for checker in checkers {
            #expect(checker.failures.values.isEmpty, "seed \(seed): \(checker.failures.values.prefix(3))")
            checker.invalidate()
        }
    }

    private func expectListsMatchServer(
        _ lists: [LiveCollection<ChannelMember>], _ queries: [(ChatClient, MemberListQuery)], seed: UInt64, step: Int
    ) async throws {
        for (list, (observer, query)) in zip(lists, queries) {
            await observer.synchronize()
            let expected = try await observer.transport.send(.queryMembers(query, after: nil)).memberPageValue?.items
            #expect(
                list.snapshots == expected,
                "seed \(seed) step \(step) \(observer.currentUserId) \(query.filter) \(query.sortBy) \(query.roles)")
        }
    }
}
