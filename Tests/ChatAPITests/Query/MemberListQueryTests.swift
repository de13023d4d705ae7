import ChatAPI
import Foundation
import Testing

@Suite struct MemberListQueryTests {
    static func member(
        _ id: String, joined: Double, membership: Membership = .member, muted: Bool = false,
        roles: [String] = []
    ) -> ChannelMember {
        ChannelMember(
            channelId: "c1", userId: id, roles: roles, membership: membership,
            mutedUntil: muted ? .distantFuture : nil, isMuted: muted,
            joinedAt: Date(timeIntervalSince1970: joined))
    }

    static let members = [
        member("dave", joined: 30, muted: true, roles: ["moderator"]),
        member("bob", joined: 10),
        member("eve", joined: 20, membership: .banned),
        member("carol", joined: 10, roles: ["moderator", "owner"]),
        member("ann", joined: 40, muted: true),
    ]

    static func ids(_ query: MemberListQuery) throws -> [String] {
        try query.page(of: members.filter(query.matches), after: nil, limit: 50).items.map(\.userId)
    }

    @Test func filtersAndSorts() throws {
        #expect(try Self.ids(MemberListQuery(channelId: "c1")) == ["bob", "carol", "dave", "ann"])
        #expect(
            try Self.ids(MemberListQuery(channelId: "c1", sortBy: .lastCreated)) == [
                "ann", "dave", "bob", "carol",
            ])
        #expect(try Self.ids(MemberListQuery(channelId: "c1", filter: .mute)) == ["dave", "ann"])
        #expect(try Self.ids(MemberListQuery(channelId: "c1", filter: .ban)) == ["eve"])
        #expect(
            try Self.ids(MemberListQuery(channelId: "c1", roles: ["moderator"])) == [
                "carol", "dave",
            ])
        #expect(
            try Self.ids(MemberListQuery(channelId: "c1", roles: ["owner", "ghost"])) == ["carol"])
        #expect(try Self.ids(MemberListQuery(channelId: "other")).isEmpty)
    }

    @Test func pagesWithCursor() throws {
        let query = MemberListQuery(channelId: "c1", pageSize: 2)
        let candidates = Self.members.filter(query.matches)
        let first = try query.page(of: candidates, after: nil, limit: query.pageSize)
        let second = try query.page(of: candidates, after: first.next, limit: query.pageSize)
        #expect(first.items.map(\.userId) == ["bob", "carol"] && first.hasNext)
        #expect(second.items.map(\.userId) == ["dave", "ann"] && !second.hasNext)
        let other = MemberListQuery(channelId: "c1", sortBy: .lastCreated)
        #expect(throws: ChatError.self) {
            try other.page(of: candidates, after: first.next, limit: 2)
        }
    }

    @Test func validation() throws {
        try MemberListQuery(channelId: "c1").validate()
        #expect(throws: ChatError.self) {
            try MemberListQuery(channelId: "c1", pageSize: 0).validate()
        }
        let query = MemberListQuery(
            channelId: "c1", filter: .ban, sortBy: .lastCreated, roles: ["x"], pageSize: 3)
        #expect(try roundTrip(query) == query)
    }
}
