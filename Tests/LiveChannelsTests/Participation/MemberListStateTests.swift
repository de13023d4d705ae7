import ChatAPI
import Foundation
import LiveCore
@testable import LiveChannels
import Testing

/// The member list state machine without a server: each change it returns leads exactly from
/// the previous items to the new ones.
struct MemberListStateTests {
    private func member(_ userId: String, joined: Double, membership: Membership = .member, muted: Bool = false,
                        roles: [String] = []) -> ChannelMember {
        ChannelMember(
            channelId: "club", userId: userId, roles: roles, membership: membership, isMuted: muted,
            joinedAt: Date(timeIntervalSince1970: joined))
    }

    private func complete(_ state: inout MemberListState, with members: [ChannelMember]) {
        state.extendWindow(with: Page(items: members, next: nil, hasNext: false), isFirst: true)
        state.rebuild(from: members)
    }

    /// Applies `member` and checks the returned change against the items before and after.
    private func apply(_ member: ChannelMember, to state: inout MemberListState) -> CollectionChange? {
        let before = state.items
        let change = state.apply(member)
        if let change {
            #expect(change.applying(to: before, new: state.items) == state.items)
        } else {
            #expect(before == state.items)
        }
        return change
    }

    @Test func membersEnterMoveAndLeave() {
        var state = MemberListState(query: MemberListQuery(channelId: "club"))
        complete(&state, with: [member("a", joined: 1), member("b", joined: 2)])
        #expect(apply(member("c", joined: 3), to: &state) == CollectionChange(insertions: [2]))
        // Rejoining moves a member to the end (joinedAt changed).
        #expect(apply(member("a", joined: 4), to: &state) == CollectionChange(moves: [.init(from: 0, to: 2, isModified: true)]))
        #expect(apply(member("b", joined: 2, roles: ["vip"]), to: &state) == CollectionChange(modifications: [0], modificationsInNew: [0]))
        #expect(apply(member("c", joined: 3, membership: .banned), to: &state) == CollectionChange(deletions: [1]))
        #expect(apply(member("zzz", joined: 9, membership: .none), to: &state) == nil)
        #expect(apply(ChannelMember(channelId: "other", userId: "q"), to: &state) == nil)
        #expect(state.items.map(\.userId) == ["b", "a"])
    }

    @Test func filtersDecideMembershipOfTheList() {
        var muted = MemberListState(query: MemberListQuery(channelId: "club", filter: .mute, sortBy: .lastCreated))
        complete(&muted, with: [])
        #expect(apply(member("a", joined: 1, muted: true), to: &muted) == CollectionChange(insertions: [0]))
        #expect(apply(member("b", joined: 2, muted: true), to: &muted) == CollectionChange(insertions: [0]))
        #expect(apply(member("a", joined: 1), to: &muted) == CollectionChange(deletions: [1]))
        var banned = MemberListState(query: MemberListQuery(channelId: "club", filter: .ban))
        complete(&banned, with: [])
        #expect(apply(member("b", joined: 3, membership: .banned), to: &banned) == CollectionChange(insertions: [0]))
        #expect(apply(member("b", joined: 3, membership: .none), to: &banned) == CollectionChange(deletions: [0]))
    }

    @Test func membersBeyondTheLoadedWindowWaitForTheirPage() {
        var state = MemberListState(query: MemberListQuery(channelId: "club", pageSize: 2))
        let first = [member("a", joined: 1), member("b", joined: 2)]
        state.extendWindow(with: Page(items: first, next: nil, hasNext: true), isFirst: true)
        state.rebuild(from: first)
        #expect(state.hasNext)
        #expect(state.nextCursor != nil)
        #expect(apply(member("late", joined: 5), to: &state) == nil)
        #expect(apply(member("early", joined: 0), to: &state) == CollectionChange(insertions: [0]))
        state.extendWindow(with: Page(items: [member("late", joined: 5)], next: nil, hasNext: false), isFirst: false)
        state.rebuild(from: first + [member("late", joined: 5), member("early", joined: 0)])
        #expect(state.items.map(\.userId) == ["early", "a", "b", "late"])
        #expect(!state.hasNext)
    }

    @Test func prefillShowsCachedMembersButStillAsksForTheFirstPage() {
        var state = MemberListState(query: MemberListQuery(channelId: "club", pageSize: 2))
        state.prefill(from: [member("c", joined: 3), member("b", joined: 2), member("d", joined: 4)])
        #expect(state.items.map(\.userId) == ["b", "c"])
        #expect(state.nextCursor == nil)
        // The server's first page replaces the prefilled window.
        let page = [member("a", joined: 1), member("b", joined: 2)]
        state.extendWindow(with: Page(items: page, next: nil, hasNext: true), isFirst: true)
        state.rebuild(from: page + [member("c", joined: 3), member("d", joined: 4)])
        #expect(state.items.map(\.userId) == ["a", "b"])
    }
}
