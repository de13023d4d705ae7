import ChatAPI
import Foundation
import Testing

/// An ill-typed filter and the key its error must name.
struct InvalidFilter: Sendable, CustomTestStringConvertible {
    let filter: Filter
    let field: String
    var testDescription: String { "\(field): \(filter)" }
}

@Suite struct FilterValidationTests {
    static let invalid: [InvalidFilter] = [
        .init(filter: .condition(.memberCount, .autocomplete("4")), field: "memberCount"),
        .init(filter: .contains(.displayName, value: "x"), field: "displayName"),
        .init(filter: .contains(.channelId, value: "x"), field: "channelId"),
        .init(filter: .condition(.isMuted, .greater(true)), field: "isMuted"),
        .init(filter: .greater(.tags, than: "a"), field: "tags"),
        .init(filter: .condition(.type, .equal("nope")), field: "type"),
        .init(filter: .condition(.type, .less("live")), field: "type"),
        .init(filter: .condition(.membership, .in(["member", "ghost"])), field: "membership"),
        .init(filter: .condition(.memberCount, .equal("ten")), field: "memberCount"),
        .init(filter: .condition(.memberCount, .equal(nil)), field: "memberCount"),
        .init(filter: .condition(.createdAt, .less("yesterday")), field: "createdAt"),
        .init(filter: .condition(.joined, .equal("yes")), field: "joined"),
        .init(filter: .condition(.hasUnread, .autocomplete("t")), field: "hasUnread"),
        .init(filter: .condition(.members, .greater("a")), field: "members"),
        .init(filter: .condition(.members, .equal(1)), field: "members"),
        .init(filter: .condition(.members, .autocomplete("al")), field: "members"),
        .init(filter: .condition(.channelId, .containsAll(["a"])), field: "channelId"),
        .init(filter: .condition(.tags, .contains(3)), field: "tags"),
        .init(filter: .greater("score", than: true), field: "metadata.score"),
        .init(filter: .less("score", than: ["a"]), field: "metadata.score"),
        .init(filter: .autocomplete("title", text: "  "), field: "metadata.title"),
        .init(filter: .autocomplete(.displayName, text: ""), field: "displayName"),
        .init(filter: .equal("", to: 1), field: "metadata."),
        .init(filter: .equal("a..b", to: 1), field: "metadata.a..b"),
        .init(filter: .equal("$where", to: 1), field: "metadata.$where"),
        .init(filter: .or([]), field: "$or"),
        .init(filter: .nor([]), field: "$nor"),
        .init(
            filter: .and([
                .equal(.type, to: .live), .or([.condition(.isDeleted, .autocomplete("x"))]),
            ]),
            field: "isDeleted"),
        .init(filter: .nor([.all, .not(.memberCount, "x")]), field: "memberCount"),
    ]

    @Test(arguments: invalid)
    func rejectsNamingTheKey(_ row: InvalidFilter) {
        do {
            try row.filter.validate()
            Issue.record("accepted an invalid filter")
        } catch let ChatError.invalidArgument(field, reason) {
            #expect(field == row.field)
            #expect(!reason.isEmpty)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func validatedReturnsTheFilter() throws {
        let filter: Filter = .and([.equal(.type, to: .live), .exists("state")])
        #expect(try filter.validated() == filter)
        #expect(throws: ChatError.self) { try Filter.or([]).validated() }
    }

    @Test func nullIsAllowedOnlyForOptionalFields() throws {
        try Filter.condition(.displayName, .equal(nil)).validate()
        try Filter.condition(.lastMessageAt, .notIn([nil])).validate()
        try Filter.condition(.metadata("x"), .equal(nil)).validate()
        #expect(throws: ChatError.self) { try Filter.condition(.type, .equal(nil)).validate() }
    }

    @Test func queryValidation() throws {
        try ChannelListQuery().validate()
        try ChannelListQuery(sort: [], pageSize: 100).validate()
        #expect(
            throws: ChatError.invalidArgument(
                field: "pageSize", reason: "must be between 1 and 100")
        ) {
            try ChannelListQuery(pageSize: 0).validate()
        }
        #expect(throws: ChatError.self) { try ChannelListQuery(pageSize: 101).validate() }
        #expect(throws: ChatError.self) {
            try ChannelListQuery(sort: [Sorting(key: .metadata("a."))]).validate()
        }
        #expect(throws: ChatError.self) {
            try ChannelListQuery(filter: .contains(.displayName, value: "x")).validate()
        }
    }
}

extension Filter {
    /// A condition whose operand does not suit `field` (test helper for nested rows).
    fileprivate static func not(_ key: ChannelFilterKey<Int>, _ operand: JSON) -> Filter {
        .condition(key.field, .equal(operand))
    }
}
