import ChatAPI
import Foundation
import Testing

/// One row of the evaluator table: a filter, a channel, the channel's members, the answer.
struct FilterCase: Sendable, CustomTestStringConvertible {
    let filter: Filter
    let channel: Channel
    let members: Set<String>
    let expected: Bool
    let line: Int

    var testDescription: String { "line \(line): \(channel.channelId) \(filter)" }
}

enum FilterTable {
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    /// Every field set.
    static let rich = Channel(
        channelId: "c-rich", type: .community,
        metadata: [
            "state": "LA", "custom_score": ["value": 7.5], "flags": ["vip", "beta"],
            "nums": [1, 5, 9], "active": true, "nothing": nil, "title": "Café Crème",
        ],
        tags: ["ios", "news"], isMuted: true, displayName: "Nouvelle Équipe Ops",
        memberCount: 42, messageCount: 12, lastActivity: date(3000), createdAt: date(1000),
        updatedAt: date(2000), creatorId: "alice", lastMessageAt: date(3000), lastSequence: 12,
        currentUserMembership: .member, readSequence: 9, hasMention: true)

    /// Optional fields unset, no metadata, viewer not a member.
    static let bare = Channel(channelId: "c-bare", type: .conversation, createdAt: date(500))

    static let yes: Filter = .equal(.channelId, to: "c-rich")
    static let no: Filter = .equal(.channelId, to: "nope")

    static func r(_ filter: Filter, _ expected: Bool, line: Int = #line) -> FilterCase {
        FilterCase(
            filter: filter, channel: rich, members: ["alice", "bob"], expected: expected, line: line
        )
    }

    static func b(_ filter: Filter, _ expected: Bool, line: Int = #line) -> FilterCase {
        FilterCase(filter: filter, channel: bare, members: [], expected: expected, line: line)
    }

    static let cases: [FilterCase] =
        equalCases + comparisonCases + setCases + arrayAndTextCases
        + logicCases

    static let equalCases: [FilterCase] = [
        r(.equal(.channelId, to: "c-rich"), true),
        r(.equal(.channelId, to: "x"), false),
        r(.equal(.type, to: .community), true),
        r(.equal(.type, to: .live), false),
        r(.equal(.displayName, to: "Nouvelle Équipe Ops"), true),
        b(.equal(.displayName, to: "x"), false),
        b(.condition(.displayName, .equal(nil)), true),
        b(.condition(.lastMessageAt, .equal(nil)), true),
        r(.condition(.lastMessageAt, .equal(nil)), false),
        r(.equal(.tags, to: "ios"), true),
        r(.equal(.tags, to: "android"), false),
        r(.equal(.memberCount, to: 42), true),
        r(.equal(.messageCount, to: 12), true),
        r(.equal(.createdAt, to: date(1000)), true),
        r(.equal(.isMuted, to: true), true),
        r(.equal(.isDeleted, to: true), false),
        r(.equal(.isDistinct, to: false), true),
        r(.equal(.creator, to: "alice"), true),
        b(.equal(.creator, to: "alice"), false),
        r(.equal(.members, to: "alice"), true),
        r(.equal(.members, to: "carol"), false),
        r(.equal(.joined, to: true), true),
        b(.equal(.joined, to: false), true),
        r(.equal(.membership, to: .member), true),
        b(.equal(.membership, to: .none), true),
        r(.equal(.unreadCount, to: 3), true),
        b(.equal(.unreadCount, to: 0), true),
        r(.equal(.hasUnread, to: true), true),
        b(.equal(.hasUnread, to: false), true),
        r(.equal(.hasMention, to: true), true),
        r(.equal("state", to: "LA"), true),
        r(.equal("state", to: "NY"), false),
        r(.equal("custom_score.value", to: 7.5), true),
        r(.equal("custom_score", to: ["value": 7.5]), true),
        r(.equal("flags", to: "vip"), true),
        r(.equal("flags", to: ["vip", "beta"]), true),
        r(.equal("flags", to: ["beta", "vip"]), false),
        r(.equal("missing", to: nil), true),
        r(.equal("nothing", to: nil), true),
        r(.equal("state", to: nil), false),
        r(.equal("custom_score.value", to: "7.5"), false),
        r(.equal("active", to: true), true),
        b(.equal("state", to: "LA"), false),
        r(.notEqual(.type, to: .live), true),
        r(.notEqual(.type, to: .community), false),
        r(.notEqual("state", to: "NY"), true),
        r(.notEqual("missing", to: "x"), true),
        b(.notEqual(.displayName, to: "x"), true),
        r(.notEqual(.tags, to: "ios"), false),
        r(.notEqual(.tags, to: "android"), true),
        r(.notEqual(.members, to: "carol"), true),
        r(.notEqual(.members, to: "alice"), false),
        r(.notEqual("nothing", to: nil), false),
        r(.notEqual("missing", to: nil), false),
    ]

    static let comparisonCases: [FilterCase] = [
        r(.greater(.memberCount, than: 41), true),
        r(.greater(.memberCount, than: 42), false),
        r(.greaterOrEqual(.memberCount, than: 42), true),
        r(.less(.memberCount, than: 42), false),
        r(.lessOrEqual(.memberCount, than: 42), true),
        r(.less(.messageCount, than: 100), true),
        r(.greater(.createdAt, than: date(999)), true),
        r(.less(.lastActivity, than: date(3000)), false),
        r(.lessOrEqual(.lastActivity, than: date(3000)), true),
        r(.greater(.updatedAt, than: date(2000)), false),
        r(.greater(.lastMessageAt, than: date(0)), true),
        b(.greater(.lastMessageAt, than: date(0)), false),
        b(.less(.lastMessageAt, than: date(1e12)), false),
        r(.greater(.displayName, than: "M"), true),
        b(.greater(.displayName, than: ""), false),
        r(.less(.channelId, than: "c-s"), true),
        r(.greater(.unreadCount, than: 2), true),
        b(.greater(.unreadCount, than: 0), false),
        r(.greater("custom_score.value", than: 7), true),
        r(.greater("custom_score.value", than: 7.5), false),
        r(.greaterOrEqual("custom_score.value", than: 7.5), true),
        r(.less("custom_score.value", than: 10), true),
        r(.lessOrEqual("custom_score.value", than: 7), false),
        r(.greater("state", than: "A"), true),
        r(.greater("state", than: 5), false),
        r(.less("state", than: 5), false),
        r(.greater("nums", than: 8), true),
        r(.greater("nums", than: 9), false),
        r(.less("nums", than: 2), true),
        r(.greater("missing", than: 0), false),
        r(.lessOrEqual("nothing", than: 0), false),
    ]

    static let setCases: [FilterCase] = [
        r(.in(.type, values: [.live, .community]), true),
        r(.in(.type, values: [.live, .broadcast]), false),
        r(.in(.channelId, values: []), false),
        r(.in(.tags, values: ["android", "news"]), true),
        r(.in(.members, values: ["carol", "bob"]), true),
        r(.in(.members, values: ["carol", "dave"]), false),
        r(.in("state", values: ["LA", "NY"]), true),
        r(.in("missing", values: [nil]), true),
        r(.in("flags", values: ["beta"]), true),
        r(.in(.memberCount, values: [1, 2, 42]), true),
        b(.in(.membership, values: [.member, .banned]), false),
        r(.notIn(.type, values: [.live]), true),
        r(.notIn(.type, values: [.community]), false),
        r(.notIn("missing", values: ["x"]), true),
        r(.notIn(.tags, values: ["ios"]), false),
        r(.notIn(.members, values: ["carol"]), true),
        r(.notIn(.members, values: ["bob", "carol"]), false),
        b(.notIn(.displayName, values: ["x"]), true),
        r(.notIn(.channelId, values: []), true),
        r(.exists(.displayName), true),
        b(.exists(.displayName), false),
        b(.exists(.displayName, exists: false), true),
        r(.exists("state"), true),
        r(.exists("missing"), false),
        r(.exists("missing", exists: false), true),
        r(.exists("nothing"), true),
        r(.exists("custom_score.value"), true),
        r(.exists("custom_score.other"), false),
        r(.exists("state.sub"), false),
        r(.exists(.lastMessageAt), true),
        b(.exists(.lastMessageAt), false),
        b(.exists(.creator, exists: false), true),
        r(.exists(.members), true),
        r(.exists(.memberCount), true),
    ]

    static let arrayAndTextCases: [FilterCase] = [
        r(.contains(.tags, value: "news"), true),
        r(.contains(.tags, value: "x"), false),
        b(.contains(.tags, value: "news"), false),
        r(.contains(.members, value: "bob"), true),
        r(.contains(.members, value: "zed"), false),
        r(.contains("flags", value: "beta"), true),
        r(.contains("nums", value: 5), true),
        r(.contains("nums", value: 6), false),
        r(.contains("state", value: "L"), false),
        r(.contains("missing", value: "x"), false),
        r(.condition(.metadata("flags"), .containsAll(["vip", "beta"])), true),
        r(.condition(.metadata("flags"), .containsAll(["vip", "gold"])), false),
        r(.condition(.tags, .containsAll(["news", "ios"])), true),
        r(.autocomplete(.displayName, text: "equ"), true),
        r(.autocomplete(.displayName, text: "NOUV"), true),
        r(.autocomplete(.displayName, text: "uipe"), false),
        r(.autocomplete(.displayName, text: "équipe o"), true),
        r(.autocomplete(.displayName, text: "ops x"), false),
        b(.autocomplete(.displayName, text: "a"), false),
        r(.autocomplete("title", text: "creme"), true),
        r(.autocomplete("title", text: "CAFE cr"), true),
        r(.autocomplete("custom_score.value", text: "7"), false),
        r(.autocomplete("flags", text: "VI"), true),
        r(.autocomplete(.tags, text: "ne"), true),
        r(.autocomplete(.tags, text: "ws"), false),
        r(.autocomplete(.channelId, text: "rich"), true),
        r(.autocomplete(.creator, text: "ali"), true),
        r(.containMembers(userIds: ["alice"]), true),
        r(.containMembers(userIds: ["alice", "bob"]), true),
        r(.containMembers(userIds: ["alice", "carol"]), false),
        r(.containMembers(userIds: []), true),
        b(.containMembers(userIds: ["alice"]), false),
    ]

    static let logicCases: [FilterCase] = [
        r(.all, true),
        b(.all, true),
        r(.and([yes, yes]), true),
        r(.and([yes, no]), false),
        r(.or([no, yes]), true),
        r(.or([no, no]), false),
        r(.nor([no, no]), true),
        r(.nor([no, yes]), false),
        r(.and([.or([no, .and([yes, yes])]), .nor([no])]), true),
        r(.or([.and([yes, .nor([yes])]), .equal("state", to: "NY")]), false),
        r(.nor([.nor([yes])]), true),
        r(
            .and([
                .equal(.type, to: .community),
                .or([.exists("missing"), .greater(.memberCount, than: 40)]),
            ]), true),
        b(.nor([.exists(.displayName), .equal(.joined, to: true)]), true),
        r(
            .and([
                .containMembers(userIds: ["alice"]), .equal(.type, to: .community),
                .equal("state", to: "LA"),
            ]), true),
        r(ChannelQueryFilter.userIsMember.filter, true),
        b(ChannelQueryFilter.userIsMember.filter, false),
        b(ChannelQueryFilter.userIsNotMember.filter, true),
        r(ChannelQueryFilter.userIsNotMember.filter, false),
        b(ChannelQueryFilter.all.filter, true),
    ]
}

@Suite struct FilterEvaluationTests {
    @Test func tableIsLargeEnough() {
        #expect(FilterTable.cases.count >= 100)
    }

    @Test(arguments: FilterTable.cases)
    func evaluates(_ row: FilterCase) {
        #expect(row.filter.matches(row.channel, memberIds: row.members) == row.expected)
    }

    @Test(arguments: FilterTable.cases)
    func tableFiltersAreValid(_ row: FilterCase) throws {
        try row.filter.validate()
    }

    @Test func memberLookupIsOnlyCalledForMemberConditions() {
        var asked: [String] = []
        let plain: Filter = .and([.equal(.type, to: .community), .exists("state")])
        _ = plain.matches(FilterTable.rich) {
            asked.append($0)
            return true
        }
        #expect(asked.isEmpty)
        #expect(!plain.usesMembers)

        let withMembers: Filter = .or([
            .equal(.type, to: .live), .containMembers(userIds: ["a", "b"]),
        ])
        #expect(withMembers.usesMembers)
        #expect(
            withMembers.matches(FilterTable.rich) {
                asked.append($0)
                return true
            })
        #expect(asked == ["a", "b"])
    }

    @Test func viewerOnlyMembership() {
        let mine: Filter = .containMembers(userIds: ["me"])
        #expect(mine.matches(FilterTable.rich, viewerId: "me"))
        #expect(!mine.matches(FilterTable.bare, viewerId: "me"))
        #expect(
            !Filter.containMembers(userIds: ["someone"]).matches(FilterTable.rich, viewerId: "me"))
    }
}
