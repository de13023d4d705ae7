import ChatAPI
import Foundation
import LiveChannels
import Testing

/// A query built by a channel query builder and the ids of `ChannelQueryTable.channels` it must
/// match for the viewer `ChannelQueryTable.viewer`.
struct ChannelQueryCase: Sendable, CustomTestStringConvertible {
    let label: String
    let query: ChannelListQuery
    let expected: Set<String>

    var testDescription: String { label }

    init(_ label: String, _ builder: some ChannelQueryBuilder, _ expected: Set<String>) {
        self.label = label
        self.query = builder.query
        self.expected = expected
    }
}

/// Sample channels as the viewer `"me"` sees them: every type, tags `a`/`b`/`c`, member,
/// non-member and banned, deleted and not.
enum ChannelQueryTable {
    static let viewer = "me"

    static let channels: [Channel] = [
        channel("std-a-member", .standard, tags: ["a"], .member),
        channel("std-none", .standard, tags: [], .none),
        channel("prv-b", .private, tags: ["b"], .none),
        channel("prv-ab-member", .private, tags: ["a", "b"], .member),
        channel("brd-ab-member", .broadcast, tags: ["a", "b"], .member),
        channel("brd-none", .broadcast, tags: [], .none),
        channel("cmm-a-member", .community, tags: ["a"], .member),
        channel("cmm-c", .community, tags: ["c"], .none),
        channel("cmm-a-banned", .community, tags: ["a"], .banned),
        channel("cmm-a-member-deleted", .community, tags: ["a"], .member, deleted: true),
        channel("cnv-member", .conversation, tags: [], .member),
        channel("cnv-b-member-deleted", .conversation, tags: ["b"], .member, deleted: true),
        channel("live-b-member", .live, tags: ["b"], .member),
        channel("live-a-deleted", .live, tags: ["a"], .none, deleted: true),
    ]

    /// The ids of the sample channels `query` matches for `viewer`.
    static func matching(_ query: ChannelListQuery) -> Set<String> {
        Set(channels.filter { query.filter.matches($0, viewerId: viewer) }.map(\.channelId))
    }

    static let cases: [ChannelQueryCase] = [
        .init(
            "by types: standard and private",
            ByTypesChannelQueryBuilder(types: [.standard, .private]),
            ["std-a-member", "std-none", "prv-b", "prv-ab-member"]),
        .init(
            "by types: every type, deleted included",
            ByTypesChannelQueryBuilder(types: Set(ChannelType.allCases), includeDeleted: true),
            Set(channels.map(\.channelId))),
        .init(
            "by types: every type, deleted left out",
            ByTypesChannelQueryBuilder(types: Set(ChannelType.allCases)),
            Set(channels.filter { !$0.isDeleted }.map(\.channelId))),
        .init(
            "by types: member of, tagged a or b, not c",
            ByTypesChannelQueryBuilder(
                types: [.standard, .private, .community, .live], channelQueryFilter: .userIsMember,
                includingTags: ["a", "b"], excludingTags: ["c"]),
            ["std-a-member", "prv-ab-member", "cmm-a-member", "live-b-member"]),
        .init(
            "by types: no types",
            ByTypesChannelQueryBuilder(types: Set<ChannelType>(), includeDeleted: true), []),
        .init(
            "standard: all", StandardChannelQueryBuilder(), ["std-a-member", "std-none"]),
        .init(
            "standard: not a member",
            StandardChannelQueryBuilder(channelQueryFilter: .userIsNotMember),
            ["std-none"]),
        .init(
            "standard: excluding a", StandardChannelQueryBuilder(excludingTags: ["a"]), ["std-none"]
        ),
        .init(
            "private: including b", PrivateChannelQueryBuilder(includingTags: ["b"]),
            [
                "prv-b", "prv-ab-member",
            ]),
        .init(
            "private: including b, excluding a",
            PrivateChannelQueryBuilder(includingTags: ["b"], excludingTags: ["a"]), ["prv-b"]),
        .init(
            "broadcast: member of", BroadcastChannelQueryBuilder(channelQueryFilter: .userIsMember),
            ["brd-ab-member"]),
        .init(
            "broadcast: untagged only via excluding a and b",
            BroadcastChannelQueryBuilder(excludingTags: ["a", "b"]), ["brd-none"]),
        .init(
            "conversation: seed form",
            ConversationChannelQueryBuilder(includingTags: nil, excludingTags: nil), ["cnv-member"]),
        .init(
            "conversation: deleted included",
            ConversationChannelQueryBuilder(
                includingTags: nil, excludingTags: nil, includeDeleted: true),
            ["cnv-member", "cnv-b-member-deleted"]),
        .init(
            "conversation: tagged b, deleted included",
            ConversationChannelQueryBuilder(
                includingTags: ["b"], excludingTags: nil, includeDeleted: true),
            ["cnv-b-member-deleted"]),
        .init(
            "live: seed form",
            LiveChannelQueryBuilder(includingTags: nil, excludingTags: nil, includeDeleted: false),
            ["live-b-member"]),
        .init(
            "live: deleted included, excluding b",
            LiveChannelQueryBuilder(includingTags: [], excludingTags: ["b"], includeDeleted: true),
            ["live-a-deleted"]),
        .init(
            "community: all", CommunityChannelQueryBuilder(),
            ["cmm-a-member", "cmm-c", "cmm-a-banned"]),
        .init(
            "community: member of (seed form)",
            CommunityChannelQueryBuilder(
                filter: .userIsMember, includingTags: nil, excludingTags: nil, includeDeleted: false
            ),
            ["cmm-a-member"]),
        .init(
            "community: member of, deleted included",
            CommunityChannelQueryBuilder(filter: .userIsMember, includeDeleted: true),
            ["cmm-a-member", "cmm-a-member-deleted"]),
        .init(
            "community: not a member (banned counts)",
            CommunityChannelQueryBuilder(filter: .userIsNotMember), ["cmm-c", "cmm-a-banned"]),
        .init(
            "community: not a member, tagged a",
            CommunityChannelQueryBuilder(filter: .userIsNotMember, includingTags: ["a"]),
            ["cmm-a-banned"]),
        .init(
            "community: tag nobody has", CommunityChannelQueryBuilder(includingTags: ["zzz"]), []),
    ]

    private static func channel(
        _ id: String, _ type: ChannelType, tags: [String], _ membership: Membership,
        deleted: Bool = false
    ) -> Channel {
        Channel(
            channelId: id, type: type, tags: tags, isDeleted: deleted,
            currentUserMembership: membership)
    }
}
