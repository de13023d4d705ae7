import ChatServer
import Foundation
import LiveChannels

/// Seed 001: a member list controller — members with their profile and presence, live.
@MainActor
final class MemberListScreen: ChatChannelMemberListControllerDelegate {
    let client: ChatClient
    let other: ChatClient
    let server: ChatServer
    let waiter = Waiter()

    init(client: ChatClient, other: ChatClient, server: ChatServer) {
        self.client = client
        self.other = other
        self.server = server
    }

    func run() async throws {
        let controller = client.memberListController(query: ChannelMemberListQuery(channelId: "general", pageSize: 2))
        controller.delegate = self
        try await controller.synchronize()
        try await controller.loadNextMembers(limit: 30)
        for member in controller.members { print(" ", describe(member)) }

        // Bob goes offline: his row updates with a "last seen".
        await other.disconnect()
        await waiter.until { controller.members.first { $0.userId == "bob" }?.user?.isOnline == false }
        try await other.connect()
        await waiter.until { controller.members.first { $0.userId == "bob" }?.user?.isOnline == true }
    }

    func describe(_ member: ChannelMember) -> String {
        let name = member.user?.displayName ?? member.userId
        let presence =
            member.user?.isOnline == true
            ? "online" : (member.user?.lastActiveAt.map { "last seen \($0)" } ?? "offline")
        return "\(name) (\(presence))"
    }

    func memberListController(
        _ controller: ChatChannelMemberListController, didChangeMembers changes: [ListChange<ChannelMember>]
    ) {
        for case .update(let member, _) in changes { print("  updated:", describe(member)) }
        waiter.check()
    }
}
